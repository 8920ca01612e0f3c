import { CancellationScope, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createJobActivities } from '../activities/jobs';

type JobActivities = ReturnType<typeof createJobActivities>;

/** Long chunked work: heartbeats every chunk, so a killed worker's attempt is retried within 30 s. */
const { importRows, applyBulk } = proxyActivities<JobActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 10 },
});

const { finishJob } = proxyActivities<JobActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20 },
});

/** Runs a job's work, then records how it ended: COMPLETED, FAILED with the reason, or CANCELLED. */
async function runJob(jobId: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    const cancelled = isCancellation(err);
    const message = cancelled ? undefined : `The job failed: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
    await CancellationScope.nonCancellable(() => finishJob(jobId, cancelled ? 'CANCELLED' : 'FAILED', message));
    throw err;
  }
  await finishJob(jobId, 'COMPLETED');
}

/** `import/<jobId>`: imports an uploaded CSV into the project's contacts. */
export async function importContacts(jobId: string): Promise<void> {
  await runJob(jobId, () => importRows(jobId));
}

/** `bulk/<jobId>`: subscribes, unsubscribes or deletes up to 1,000 contacts. */
export async function bulkContacts(jobId: string): Promise<void> {
  await runJob(jobId, () => applyBulk(jobId));
}
