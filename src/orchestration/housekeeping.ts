import type { Client } from '@temporalio/client';
import { housekeeping } from '../../workflows/housekeeping';
import { HOUSEKEEPING_WORKFLOW_ID } from '../../workflows/shared';
import { ensureRunning } from './long-running';

/** Starts the `housekeeping` workflow unless it already runs; safe to call on every start-up. */
export async function ensureHousekeeping(client: Client, taskQueue: string): Promise<void> {
  await ensureRunning(client, housekeeping, {
    workflowId: HOUSEKEEPING_WORKFLOW_ID,
    taskQueue,
    staticSummary: 'Purge expired keys, windows, sessions, tokens and mail events daily',
  });
}
