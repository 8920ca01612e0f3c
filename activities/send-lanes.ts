import { Context } from '@temporalio/activity';
import type { SendLanes } from '../src/sending/send-lanes';

/** How long one pass of a send lane claims before it ends, so that its workflow records progress and can continue as new. */
const PASS_MS = 60_000;

/** Activities of the `send-lane/<queue>/<n>` workflows. */
export function createSendLaneActivities(lanes: SendLanes) {
  return {
    /** One pass of a send lane: delivers the send queue's due emails for about a minute, heartbeating; answers the emails attempted. */
    async drainSendLane(lane: number): Promise<number> {
      const context = Context.current();
      return lanes.drain(context.info.taskQueue, lane, {
        untilMs: Date.now() + PASS_MS,
        heartbeat: (attempted) => context.heartbeat(attempted),
        signal: context.cancellationSignal,
      });
    },
  };
}
