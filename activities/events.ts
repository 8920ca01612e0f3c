import type { DataSource } from 'typeorm';
import type { EventDispatcher } from '../src/events/dispatcher';
import { redeliverDue, type RedeliveryResult } from '../src/events/redelivery';

/** Dispatches claimed per pass. */
const REDELIVERY_BATCH = 100;

/** Activities of the event-redelivery workflow. */
export function createEventActivities(deps: { dataSource: DataSource; dispatcher: EventDispatcher }) {
  return {
    /** Delivers again up to a batch of event dispatches that were not completed in time; `more` when the batch was full. */
    async redeliverEvents(): Promise<RedeliveryResult & { more: boolean }> {
      const result = await redeliverDue(deps.dataSource, deps.dispatcher, REDELIVERY_BATCH);
      return { ...result, more: result.delivered + result.failed + result.abandoned >= REDELIVERY_BATCH };
    },
  };
}
