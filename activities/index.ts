import type { DataSource } from 'typeorm';
import { ContactsService } from '../src/contacts/contacts-service';
import type { Config } from '../src/config';
import type { EventDispatcher } from '../src/events/dispatcher';
import type { Mailer } from '../src/mailer/types';
import { Delivery } from '../src/sending/delivery';
import { createDeliveryActivities } from './delivery';
import { createDomainActivities } from './domains';
import { createHousekeepingActivities } from './housekeeping';
import { createJobActivities } from './jobs';

/** What activities need from the process that runs the worker. */
export interface ActivityDeps {
  dataSource: DataSource;
  mailer: Mailer;
  config: Config;
  dispatcher: EventDispatcher;
}

/** Every activity the worker registers, by name. */
export function createActivities(deps: ActivityDeps) {
  const contacts = new ContactsService(deps.dataSource, deps.dispatcher);
  return {
    ...createHousekeepingActivities(deps),
    ...createDomainActivities(deps),
    ...createJobActivities({ dataSource: deps.dataSource, contacts }),
    ...createDeliveryActivities(new Delivery(deps.dataSource, deps.mailer, deps.config, contacts)),
  };
}

/** The activity interface workflows proxy, typed from the implementations. */
export type Activities = ReturnType<typeof createActivities>;
