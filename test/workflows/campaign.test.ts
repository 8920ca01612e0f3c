import { randomUUID } from 'node:crypto';
import type { BatchRequest, BatchResult, SendingPlan } from '../../src/campaigns/campaign-runner';
import { sendCampaign } from '../../workflows/campaigns';
import { campaignWorkflowId, type SendCampaignInput } from '../../workflows/shared';
import { useTimeSkipping } from '../support/temporal';

const DAY = 24 * 60 * 60 * 1000;

/** Mocked campaign activities over an audience of contact ids `c01`, `c02`, ... sent in batches. */
function mockActivities(audience: number, batchSize: number) {
  const contacts = Array.from({ length: audience }, (_, i) => `c${String(i + 1).padStart(2, '0')}`);
  return {
    beginCampaign: jest.fn(async (_campaignId: string): Promise<SendingPlan | null> => ({ batchSize, audienceAsOf: '2025-01-01T00:00:00.000Z' })),
    sendCampaignBatch: jest.fn(async (request: BatchRequest): Promise<BatchResult> => {
      const start = request.afterContactId === null ? 0 : contacts.indexOf(request.afterContactId) + 1;
      const page = contacts.slice(start, start + request.batchSize);
      return { stopped: false, contacts: page.length, lastContactId: page.at(-1) ?? null, attempted: page.length, minDurationMs: 0 };
    }),
    finishCampaign: jest.fn(async (_campaignId: string) => undefined),
    stopCampaign: jest.fn(async (_campaignId: string, _reason: string) => undefined),
  };
}

describe('sendCampaign workflow', () => {
  const temporal = useTimeSkipping();

  async function run(activities: ReturnType<typeof mockActivities>, input: Omit<SendCampaignInput, 'campaignId'>, during: (workflowId: string) => Promise<void> = async () => undefined) {
    const workflowId = campaignWorkflowId(randomUUID());
    return temporal.withWorker(activities, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(sendCampaign, { workflowId, taskQueue, args: [{ campaignId: 'campaign-1', ...input }] });
      await during(workflowId);
      const outcome = await handle.result().then(
        (value) => ({ value, error: undefined }),
        (error: Error) => ({ value: undefined, error }),
      );
      return { outcome, handle, firstRunId: handle.firstExecutionRunId };
    });
  }

  it('waits 3 days of simulated time for a scheduled send, then sends every batch and finishes', async () => {
    const activities = mockActivities(5, 2);
    const scheduledFor = new Date((await temporal.env.currentTimeMs()) + 3 * DAY).toISOString();
    const { outcome, handle } = await run(activities, { scheduledFor });
    expect(outcome.value).toBe('SENT');
    const description = await handle.describe();
    expect(description.closeTime!.getTime()).toBeGreaterThanOrEqual(Date.parse(scheduledFor));
    expect(activities.beginCampaign).toHaveBeenCalledTimes(1);
    expect(activities.sendCampaignBatch.mock.calls.map(([request]) => request.afterContactId)).toEqual([null, 'c02', 'c04']);
    expect(activities.finishCampaign).toHaveBeenCalledWith('campaign-1');
    expect(activities.stopCampaign).not.toHaveBeenCalled();
  });

  it('sends nothing when cancelled during the timer, and records the stop', async () => {
    const activities = mockActivities(5, 2);
    const scheduledFor = new Date((await temporal.env.currentTimeMs()) + 3 * DAY).toISOString();
    const { outcome } = await run(activities, { scheduledFor }, async (workflowId) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await temporal.env.client.workflow.getHandle(workflowId).cancel();
    });
    expect(outcome.error).toBeDefined();
    expect(activities.beginCampaign).not.toHaveBeenCalled();
    expect(activities.sendCampaignBatch).not.toHaveBeenCalled();
    expect(activities.finishCampaign).not.toHaveBeenCalled();
    expect(activities.stopCampaign).toHaveBeenCalledWith('campaign-1', 'The campaign workflow was cancelled');
  });

  it('continues as new after the batches of one run, keeping the cursor', async () => {
    const activities = mockActivities(9, 2);
    const { outcome, handle, firstRunId } = await run(activities, { scheduledFor: null, batchesPerRun: 2 });
    expect(outcome.value).toBe('SENT');
    expect(activities.beginCampaign).toHaveBeenCalledTimes(1);
    const requests = activities.sendCampaignBatch.mock.calls.map(([request]) => request);
    expect(requests.map((request) => request.afterContactId)).toEqual([null, 'c02', 'c04', 'c06', 'c08']);
    expect(new Set(requests.map((request) => request.audienceAsOf))).toEqual(new Set(['2025-01-01T00:00:00.000Z']));
    const first = await temporal.env.client.workflow.getHandle(handle.workflowId, firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
    expect(activities.finishCampaign).toHaveBeenCalledTimes(1);
  });

  it('stops without sending when the campaign is no longer to be sent', async () => {
    const activities = mockActivities(3, 2);
    activities.beginCampaign.mockResolvedValue(null);
    const { outcome } = await run(activities, { scheduledFor: null });
    expect(outcome.value).toBe('NOT_ACTIVE');
    expect(activities.sendCampaignBatch).not.toHaveBeenCalled();
  });

  it('keeps each batch to the least duration the send rate asks, on durable timers', async () => {
    const activities = mockActivities(6, 2);
    activities.sendCampaignBatch.mockImplementation(async (request) => {
      const index = request.afterContactId === null ? 0 : Number(request.afterContactId.slice(1));
      const page = [`c0${index + 1}`, `c0${index + 2}`].filter((id) => Number(id.slice(1)) <= 6);
      return { stopped: false, contacts: page.length, lastContactId: page.at(-1) ?? null, attempted: page.length, minDurationMs: 60_000 };
    });
    const { outcome, handle } = await run(activities, { scheduledFor: null });
    expect(outcome.value).toBe('SENT');
    const description = await handle.describe();
    // Three full batches then an empty page: three pauses of a minute.
    expect(description.closeTime!.getTime() - description.startTime.getTime()).toBeGreaterThanOrEqual(3 * 60_000);
  });
});
