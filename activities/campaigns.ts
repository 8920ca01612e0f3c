import { ApplicationFailure, Context } from '@temporalio/activity';
import { AudienceUnavailableError } from '../src/campaigns/audience-queries';
import type { BatchRequest, BatchResult, CampaignRunner, SendingPlan } from '../src/campaigns/campaign-runner';

/** How often a running batch heartbeats, well within the workflow's heartbeat timeout (the SDK sends at most one per 80% of it). */
const ALIVE_HEARTBEAT_MS = 2_000;

/** An audience that cannot be resolved fails the campaign at once: retrying would not bring its segment back. */
async function permanentWhenUnavailable<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AudienceUnavailableError) throw ApplicationFailure.create({ message: err.message, type: 'AudienceUnavailable', nonRetryable: true });
    throw err;
  }
}

/** Activities of the `campaign/<campaignId>` workflow. */
export function createCampaignActivities(runner: CampaignRunner) {
  return {
    /** Starts sending: SENDING, `totalRecipients` counted; null when the campaign is no longer to be sent. */
    async beginCampaign(campaignId: string): Promise<SendingPlan | null> {
      return (await permanentWhenUnavailable(() => runner.begin(campaignId))) ?? null;
    },

    /**
     * Queues and delivers the next page of the audience, heartbeating every few seconds while
     * it runs, with the emails delivered so far: a batch cut off with its worker is retried once
     * the short heartbeat timeout passes. A cancelled attempt (timed out, or its campaign's
     * workflow cancelled) starts no further send.
     */
    async sendCampaignBatch(request: BatchRequest): Promise<BatchResult> {
      const context = Context.current();
      let delivered = 0;
      context.heartbeat(delivered);
      const alive = setInterval(() => context.heartbeat(delivered), ALIVE_HEARTBEAT_MS);
      try {
        return await permanentWhenUnavailable(() => runner.sendBatch(request, () => delivered++, context.cancellationSignal));
      } finally {
        clearInterval(alive);
      }
    },

    /** Marks the campaign SENT (unless it was cancelled meanwhile). */
    async finishCampaign(campaignId: string): Promise<void> {
      await runner.finish(campaignId);
    },

    /** Ends an active campaign as CANCELLED with the reason; nothing still queued is sent. */
    async stopCampaign(campaignId: string, reason: string): Promise<void> {
      await runner.stop(campaignId, reason);
    },
  };
}
