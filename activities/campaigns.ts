import { ApplicationFailure, Context } from '@temporalio/activity';
import { AudienceUnavailableError } from '../src/campaigns/audience-queries';
import type { BatchRequest, BatchResult, CampaignRunner, SendingPlan } from '../src/campaigns/campaign-runner';

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

    /** Queues and delivers the next page of the audience, heartbeating each email. */
    async sendCampaignBatch(request: BatchRequest): Promise<BatchResult> {
      let delivered = 0;
      return permanentWhenUnavailable(() => runner.sendBatch(request, () => Context.current().heartbeat(++delivered)));
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
