import type { DataSource } from 'typeorm';
import { ContactsService } from '../contacts/contacts-service';
import type { EventDispatcher } from '../events/dispatcher';
import { SegmentMembership } from './membership';

/** Entry and exit events themselves never re-evaluate a contact, so membership changes cannot loop. */
const MEMBERSHIP_EVENT = /^segment\..+\.(entry|exit)$/;

/**
 * Re-evaluates a contact against its project's tracked segments whenever one of its events is
 * stored or its fields, data or subscription are written, so entry and exit events fire within
 * moments of the change. Register once per dispatcher (API and worker processes); returns a
 * function that stops it.
 */
export function registerSegmentTracking(dispatcher: EventDispatcher, deps: { dataSource: DataSource }): () => void {
  const membership = new SegmentMembership(deps.dataSource, new ContactsService(deps.dataSource, dispatcher));
  const stopEvents = dispatcher.subscribe(async (events) => {
    const byProject = new Map<string, Set<string>>();
    for (const event of events) {
      if (!event.contactId || MEMBERSHIP_EVENT.test(event.name)) continue;
      const ids = byProject.get(event.projectId) ?? new Set<string>();
      byProject.set(event.projectId, ids.add(event.contactId));
    }
    for (const [projectId, ids] of byProject) await membership.reevaluate(projectId, [...ids]);
  });
  const stopChanges = dispatcher.onContactsChanged((projectId, contactIds) => membership.reevaluate(projectId, contactIds));
  return () => {
    stopEvents();
    stopChanges();
  };
}
