import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { createWebhookDispatchActivities } from '../activities/webhook-dispatch';
import { repeatPasses } from './passes';

type DispatchActivities = ReturnType<typeof createWebhookDispatchActivities>;

/** The pause after a pass that started less than a full batch. */
export const DISPATCH_INTERVAL = '1 second';

/** Passes one run makes before it continues as new, which keeps its history short. */
export const DISPATCH_PASSES_PER_RUN = 500;

/** A pass of a batch takes seconds; a worker that dies during one holds the next pass back this long at most. */
const { startWebhookDeliveries } = proxyActivities<DispatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/**
 * `webhook-dispatch`: forever, starts a delivery workflow for each recorded webhook delivery
 * whose workflow is not started yet, at once again after a full pass, else after a second, so
 * that recording an event never waits on Temporal and no recorded delivery is left behind.
 */
export async function webhookDispatch(): Promise<never> {
  await repeatPasses(async () => (await startWebhookDeliveries()).more, {
    interval: DISPATCH_INTERVAL,
    passesPerRun: DISPATCH_PASSES_PER_RUN,
    failure: 'Webhook dispatch pass failed; the next one runs shortly',
  });
  return await continueAsNew<typeof webhookDispatch>();
}
