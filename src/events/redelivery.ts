import type { DataSource } from 'typeorm';
import { logger } from '../logger';
import type { EventDispatcher } from './dispatcher';
import { claimDueDispatches, completeDispatches, loadDispatchEvents } from './dispatches-queries';

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

/**
 * Delivers again the dispatches nobody completed in time: left by a process that died after
 * its commit, or whose subscribers failed. Claims up to `limit` due rows, delivers each in
 * order, and removes those delivered or out of attempts.
 */
export async function redeliverDue(dataSource: DataSource, dispatcher: EventDispatcher, limit = 100): Promise<RedeliveryResult> {
  const result: RedeliveryResult = { delivered: 0, failed: 0, abandoned: 0 };
  for (const dispatch of await claimDueDispatches(dataSource, limit)) {
    const events = await loadDispatchEvents(dataSource.manager, dispatch);
    const ok = await dispatcher.deliver({ projectId: dispatch.projectId, events, contactIds: dispatch.contactIds });
    if (ok) {
      result.delivered += 1;
    } else if (dispatch.attempts >= MAX_DISPATCH_ATTEMPTS) {
      result.abandoned += 1;
      logger.error({ dispatchId: dispatch.id, projectId: dispatch.projectId, events: dispatch.eventIds }, 'event dispatch given up after its last attempt');
    } else {
      result.failed += 1;
      continue;
    }
    await completeDispatches(dataSource, [dispatch.id]);
  }
  return result;
}
