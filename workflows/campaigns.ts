import { ActivityFailure, ApplicationFailure, CancellationScope, continueAsNew, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { createCampaignActivities } from '../activities/campaigns';
import type { BatchResult } from '../src/campaigns/campaign-runner';
import type { CampaignOutcome, CampaignProgress, SendCampaignInput } from './shared';

type CampaignActivities = ReturnType<typeof createCampaignActivities>;

/** Batches one run sends before it continues as new, which keeps its history short. */
export const CAMPAIGN_BATCHES_PER_RUN = 100;

/** Short database work, retried until the database answers. */
const { beginCampaign, finishCampaign, stopCampaign } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * A batch delivers up to 1,000 emails, heartbeating every 2 seconds while it runs, so that a
 * batch cut off with its worker is retried after 20 seconds. A transient failure
 * (throttling, a transport or database outage) retries the batch for as long as it lasts,
 * backing off to 5 minutes apart; only the batch's emails still QUEUED are delivered again.
 */
const { sendCampaignBatch } = proxyActivities<CampaignActivities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

/** The reason a failure stopped the campaign, as recorded on it. */
function reason(err: unknown): string {
  if (isCancellation(err)) return 'The campaign workflow was cancelled';
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return `Sending failed: ${cause instanceof ApplicationFailure || cause instanceof Error ? cause.message : String(cause)}`;
}

/**
 * `campaign/<campaignId>`: waits for `scheduledFor`, starts sending (audience resolved now),
 * then sends batch after batch, each taking at least as long as the project's send rate
 * asks, until the audience is exhausted, and marks the campaign SENT. A cancel (API or
 * Temporal UI) or a failure stops it as CANCELLED: nobody not yet attempted gets it. A batch
 * may stop it itself (emails cap reached, project suspended): the run then ends at once.
 */
export async function sendCampaign(input: SendCampaignInput): Promise<CampaignOutcome> {
  let progress: CampaignProgress | undefined;
  try {
    progress = input.progress ?? (await start(input));
    if (!progress) return 'NOT_ACTIVE';
    for (let batch = 0; batch < (input.batchesPerRun ?? CAMPAIGN_BATCHES_PER_RUN); batch++) {
      const startedAt = Date.now();
      const result: BatchResult = await sendCampaignBatch({ campaignId: input.campaignId, ...progress });
      if (result.stopped) return 'NOT_ACTIVE';
      if (result.contacts < progress.batchSize) {
        await finishCampaign(input.campaignId);
        return 'SENT';
      }
      progress = { ...progress, afterContactId: result.lastContactId };
      const rest = result.minDurationMs - (Date.now() - startedAt);
      if (rest > 0) await sleep(rest);
    }
  } catch (err) {
    await CancellationScope.nonCancellable(() => stopCampaign(input.campaignId, reason(err)));
    throw err;
  }
  return await continueAsNew<typeof sendCampaign>({ ...input, scheduledFor: null, progress });
}

/** Sleeps until the scheduled time (a durable, cancellable timer), then begins sending. */
async function start(input: SendCampaignInput): Promise<CampaignProgress | undefined> {
  const wait = input.scheduledFor ? Date.parse(input.scheduledFor) - Date.now() : 0;
  if (wait > 0) await sleep(wait);
  const plan = await beginCampaign(input.campaignId);
  return plan ? { ...plan, afterContactId: null } : undefined;
}
