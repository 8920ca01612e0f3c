import type { DataSource } from 'typeorm';
import { logger } from '../logger';
import type { EventDispatcher } from './dispatcher';
import type { EventRecord } from '../entities/event-record';
import { claimDueDispatches, completeDispatches, loadDispatchesEvents, type QueuedDispatch } from './dispatches-queries';
import { byProject } from './event-store';

/** Deliveries of one dispatch before it is given up (about 17 hours of retries at the longest wait). */
export const MAX_DISPATCH_ATTEMPTS = 24;

/** What one redelivery pass did. */
export interface RedeliveryResult {
  /** Dispatches whose subscribers all succeeded (removed). */
  delivered: number;
  /** Dispatches that failed again and wait for their next retry. */
  failed: number;
  /** Dispatches that failed for the last time (removed, logged). */
  abandoned: number;
}

/** A claimed dispatch with its events that still exist, in the order stored. */
type Loaded = QueuedDispatch & { events: EventRecord[] };

/**
 * Delivers again the dispatches nobody completed in time: left by a process that died after
 * its commit, or whose subscribers failed. Claims up to `limit` due rows and delivers each
 * project's rows together, in the order stored, as the committing process would have (one
 * trigger check and one segment re-evaluation for all of them); when that fails, each of the
 * project's rows is delivered alone, so that only the rows whose subscribers fail wait for their
 * retry. Rows delivered or out of attempts are removed.
 */
export async function redeliverDue(dataSource: DataSource, dispatcher: EventDispatcher, limit = 100): Promise<RedeliveryResult> {
  const result: RedeliveryResult = { delivered: 0, failed: 0, abandoned: 0 };
  const claimed = await claimDueDispatches(dataSource, limit);
  const events = await loadDispatchesEvents(dataSource.manager, claimed);
  const byProjectRows = new Map<string, Loaded[]>();
  claimed.forEach((dispatch, i) => {
    const rows = byProjectRows.get(dispatch.projectId) ?? [];
    byProjectRows.set(dispatch.projectId, rows);
    rows.push({ ...dispatch, events: events[i] });
  });
  for (const rows of byProjectRows.values()) {
    if (rows.length > 1) {
      const [batch] = byProject(rows);
      const together = await dispatcher.deliver(batch);
      if (together) {
        result.delivered += rows.length;
        await completeDispatches(dataSource, rows.map((row) => row.id));
        continue;
      }
    }
    for (const row of rows) await redeliverOne(dataSource, dispatcher, row, result);
  }
  return result;
}

/** Delivers one claimed dispatch alone; removes it when delivered or out of attempts, counting the outcome. */
async function redeliverOne(dataSource: DataSource, dispatcher: EventDispatcher, dispatch: Loaded, result: RedeliveryResult): Promise<void> {
  const ok = await dispatcher.deliver({ projectId: dispatch.projectId, events: dispatch.events, contactIds: dispatch.contactIds });
  if (ok) {
    result.delivered += 1;
  } else if (dispatch.attempts >= MAX_DISPATCH_ATTEMPTS) {
    result.abandoned += 1;
    logger.error({ dispatchId: dispatch.id, projectId: dispatch.projectId, events: dispatch.eventIds }, 'event dispatch given up after its last attempt');
  } else {
    result.failed += 1;
    return;
  }
  await completeDispatches(dataSource, [dispatch.id]);
}
