import type { DataSource } from 'typeorm';
import { ContactsService } from '../contacts/contacts-service';
import type { EventDispatcher } from '../events/dispatcher';
import { SegmentMembership } from './membership';

/** Entry and exit events themselves never re-evaluate a contact, so membership changes cannot loop. */
const MEMBERSHIP_EVENT = /^segment\..+\.(entry|exit)$/;

/**
 * Re-evaluates contacts against their project's tracked segments whenever one of their events is
 * stored or their fields, data or subscription are written, so entry and exit events fire within
 * moments of the change; a committed batch is re-evaluated once for all the contacts it touched.
 * Register once per dispatcher (API and worker processes); returns a function that stops it.
 */
export function registerSegmentTracking(dispatcher: EventDispatcher, deps: { dataSource: DataSource }): () => void {
  const membership = new SegmentMembership(deps.dataSource, new ContactsService(deps.dataSource, dispatcher));
  return dispatcher.onBatch((batch) => {
    const ids = new Set(batch.contactIds);
    for (const event of batch.events) if (event.contactId && !MEMBERSHIP_EVENT.test(event.name)) ids.add(event.contactId);
    return membership.reevaluate(batch.projectId, [...ids]);
  });
}
