import { continueAsNew, log, proxyActivities } from '@temporalio/workflow';
import type { createEventActivities } from '../activities/events';
import { repeatPasses } from './passes';

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
  await repeatPasses(
    async () => {
      const { more, ...result } = await redeliverEvents();
      if (result.delivered + result.failed + result.abandoned > 0) log.info('Redelivered event dispatches', { ...result });
      return more;
    },
    { interval: REDELIVERY_INTERVAL, passesPerRun: REDELIVERY_PASSES_PER_RUN, failure: 'Event redelivery pass failed; the next one runs shortly' },
  );
  return await continueAsNew<typeof eventRedelivery>();
}
