import type { DataSource } from 'typeorm';
import { ContactsService } from '../src/contacts/contacts-service';
import type { Config } from '../src/config';
import type { EventDispatcher } from '../src/events/dispatcher';
import type { Mailer } from '../src/mailer/types';
import { CampaignRunner } from '../src/campaigns/campaign-runner';
import { Delivery } from '../src/sending/delivery';
import { SendLanes } from '../src/sending/send-lanes';
import type { SendQueueBell } from '../src/sending/send-queue-bell';
import { createSendLaneActivities } from './send-lanes';
import { createCampaignActivities } from './campaigns';
import { createDeliveryActivities } from './delivery';
import { createDomainActivities } from './domains';
import { createEventActivities } from './events';
import { createHousekeepingActivities } from './housekeeping';
import { createJobActivities } from './jobs';
import { createSegmentActivities } from './segments';
import { createWebhookDispatchActivities } from './webhook-dispatch';
import { createWebhookActivities } from './webhooks';
import { createWorkflowStepActivities } from './workflow-steps';

/** What activities need from the process that runs the worker. */
export interface ActivityDeps {
  dataSource: DataSource;
  mailer: Mailer;
  config: Config;
  dispatcher: EventDispatcher;
  sendQueue: SendQueueBell;
}

/** Every activity the worker registers, by name. */
export function createActivities(deps: ActivityDeps) {
  const contacts = new ContactsService(deps.dataSource, deps.dispatcher);
  const delivery = new Delivery(deps.dataSource, deps.mailer, deps.config, contacts);
  return {
    ...createHousekeepingActivities(deps),
    ...createDomainActivities(deps),
    ...createEventActivities(deps),
    ...createJobActivities({ dataSource: deps.dataSource, contacts }),
    ...createSegmentActivities({ dataSource: deps.dataSource, contacts }),
    ...createDeliveryActivities(delivery),
    ...createSendLaneActivities(new SendLanes(deps.dataSource, delivery, deps.sendQueue)),
    ...createCampaignActivities(new CampaignRunner(deps.dataSource, delivery, deps.config)),
    ...createWebhookActivities(deps),
    ...createWebhookDispatchActivities(deps),
    ...createWorkflowStepActivities({ dataSource: deps.dataSource, config: deps.config, contacts, delivery }),
  };
}

/** The activity interface workflows proxy, typed from the implementations. */
export type Activities = ReturnType<typeof createActivities>;
