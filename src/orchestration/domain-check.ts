import type { Client } from '@temporalio/client';
import { checkPendingDomains } from '../../workflows/domains';
import { DOMAIN_CHECK_SCHEDULE_ID } from '../../workflows/shared';
import { ensureIntervalSchedule } from './schedules';

/**
 * Creates the `domain-check` schedule (every 5 minutes, a run is skipped while the previous one
 * still runs) unless it exists; safe to call on every start-up. Without Schedules, domains are
 * checked only on `GET /domains/{id}/verify`.
 */
export async function ensureDomainCheckSchedule(client: Client, taskQueue: string): Promise<void> {
  await ensureIntervalSchedule(client, {
    scheduleId: DOMAIN_CHECK_SCHEDULE_ID,
    everyMinutes: 5,
    workflow: checkPendingDomains,
    summary: 'Check pending domains over DNS',
    taskQueue,
    withoutSchedules: 'This Temporal server has no Schedules: pending domains are checked only by GET /domains/{id}/verify',
  });
}
