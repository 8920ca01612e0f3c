import type { DataSource } from 'typeorm';
import type { EventRecord } from '../entities/event-record';
import type { EventDispatcher } from '../events/dispatcher';
import { segmentEvent, storedEventKey } from './source-events';
import { contactsForWebhooks } from './sources-queries';
import { emitWebhookEvents } from './webhook-events';

/** The SYSTEM events a tracked segment stores when a contact joins or leaves it. */
const MEMBERSHIP_EVENT = /^segment\..+\.(entry|exit)$/;

/**
 * Emits a `segment.<slug>.entry|exit` webhook event for each stored membership event, keyed by
 * that event. Membership moves store their events with a dispatch row in one statement
 * (src/segments/segments-queries.ts), so this subscriber sees every one of them at least once,
 * also after a crash (the worker's `event-redelivery`), and the key makes a second sighting
 * record nothing. Costs one indexed query per dispatched batch with membership events when the
 * project has no endpoint. Register once per dispatcher; returns a function that stops it.
 */
export function registerSegmentWebhooks(dispatcher: EventDispatcher, deps: { dataSource: DataSource }): () => void {
  return dispatcher.subscribe(async (events) => {
    const byProject = new Map<string, EventRecord[]>();
    for (const event of events) {
      if (event.source !== 'SYSTEM' || !event.contactId || !MEMBERSHIP_EVENT.test(event.name)) continue;
      const moves = byProject.get(event.projectId) ?? [];
      byProject.set(event.projectId, moves);
      moves.push(event);
    }
    for (const [projectId, moves] of byProject) await emitMoves(deps.dataSource, projectId, moves);
  });
}

/** Emits one project's membership moves, with each contact as it is now; nothing when the project has no enabled endpoint. */
async function emitMoves(dataSource: DataSource, projectId: string, moves: EventRecord[]): Promise<void> {
  const contacts = new Map((await contactsForWebhooks(dataSource.manager, projectId, [...new Set(moves.map((move) => move.contactId!))])).map((c) => [c.id, c]));
  if (contacts.size === 0) return;
  const events = moves.flatMap((move) => {
    const contact = contacts.get(move.contactId!);
    return contact ? [segmentEvent(move.name, contact, move.data as { segmentId: unknown; segmentName?: unknown }, storedEventKey(move.id))] : [];
  });
  await emitWebhookEvents(dataSource.manager, projectId, events);
}
