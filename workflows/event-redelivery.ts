import { continueAsNew, log, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createEventActivities } from '../activities/events';

type EventActivities = ReturnType<typeof createEventActivities>;

/** The pause between two passes that found little to do. */
export const REDELIVERY_INTERVAL = '15 seconds';

/** Passes one run makes before it continues as new, which keeps its history short. */
export const REDELIVERY_PASSES_PER_RUN = 500;

const { redeliverEvents } = proxyActivities<EventActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

/**
 * `event-redelivery`: forever, delivers again the event dispatches that the process which
 * committed them did not complete (it died, or a subscriber such as a workflow trigger failed),
 * so no stored event misses its triggers, waits or segment re-evaluation.
 */
export async function eventRedelivery(): Promise<never> {
  for (let pass = 0; pass < REDELIVERY_PASSES_PER_RUN && !workflowInfo().continueAsNewSuggested; pass++) {
    let more = false;
    try {
      const { more: full, ...result } = await redeliverEvents();
      more = full;
      if (result.delivered + result.failed + result.abandoned > 0) log.info('Redelivered event dispatches', { ...result });
    } catch (err) {
      log.warn('Event redelivery pass failed; the next one runs shortly', { error: (err as Error).message });
    }
    if (!more) await sleep(REDELIVERY_INTERVAL);
  }
  return await continueAsNew<typeof eventRedelivery>();
}
