import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { createSendLaneActivities } from '../activities/send-lanes';
import { repeatPasses } from './passes';

type SendLaneActivities = ReturnType<typeof createSendLaneActivities>;

/** Passes one run makes before it continues as new, which keeps its history short. */
export const SEND_LANE_PASSES_PER_RUN = 100;

/**
 * A pass runs about a minute, heartbeating at least every few seconds while it claims, sends or
 * waits: a pass cut off with its worker is retried after 10 seconds (its lane's emails are then
 * freed and attempted again), a failing one (the database away) backs off to 30 seconds apart.
 */
const { drainSendLane } = proxyActivities<SendLaneActivities>({
  startToCloseTimeout: '3 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds', maximumAttempts: 10 },
});

/**
 * `send-lane/<taskQueue>/<lane>`: forever, delivers the emails of the task queue's send queue (`/v1/send`, batch and SMTP
 * relay messages, committed before their request was answered), pass after pass.
 */
export async function sendLane(lane: number): Promise<never> {
  await repeatPasses(
    async () => {
      await drainSendLane(lane);
      return true;
    },
    { interval: '1 second', passesPerRun: SEND_LANE_PASSES_PER_RUN, failure: 'Send lane pass failed; the next one runs shortly' },
  );
  return await continueAsNew<typeof sendLane>(lane);
}
