import { isGrpcServiceError, ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { checkPendingDomains, DOMAIN_CHECK_SCHEDULE_ID } from '../../workflows/domains';
import { logger } from '../logger';

const GRPC_UNIMPLEMENTED = 12;

/**
 * Creates the `domain-check` schedule (every 5 minutes, a run is skipped while the previous one
 * still runs) unless it exists; safe to call on every start-up. A server without Schedules (the
 * in-memory test server `npm start` falls back to) is told about, and domains are then checked
 * only on `GET /domains/{id}/verify`.
 */
export async function ensureDomainCheckSchedule(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: DOMAIN_CHECK_SCHEDULE_ID,
      spec: { intervals: [{ every: '5 minutes' }] },
      action: { type: 'startWorkflow', workflowType: checkPendingDomains, workflowId: DOMAIN_CHECK_SCHEDULE_ID, taskQueue },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (err instanceof ScheduleAlreadyRunning) return;
    const cause = (err as { cause?: unknown }).cause;
    if (!isGrpcServiceError(cause) || cause.code !== GRPC_UNIMPLEMENTED) throw err;
    logger.warn('This Temporal server has no Schedules: pending domains are checked only by GET /domains/{id}/verify');
  }
}
