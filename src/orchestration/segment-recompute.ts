import type { Client } from '@temporalio/client';
import { recomputeTrackedSegments } from '../../workflows/segments';
import { SEGMENT_RECOMPUTE_SCHEDULE_ID } from '../../workflows/shared';
import { ensureIntervalSchedule } from './schedules';

/**
 * Creates the `segment-recompute` schedule, which computes every tracked segment each
 * `minutes` (SEGMENT_RECOMPUTE_MINUTES), or moves an existing one to that interval. Without
 * Schedules, tracked segments change only per contact and on `POST /segments/{id}/compute`.
 */
export async function ensureSegmentRecomputeSchedule(client: Client, taskQueue: string, minutes: number): Promise<void> {
  await ensureIntervalSchedule(client, {
    scheduleId: SEGMENT_RECOMPUTE_SCHEDULE_ID,
    everyMinutes: minutes,
    workflow: recomputeTrackedSegments,
    summary: 'Recompute every tracked segment',
    taskQueue,
    withoutSchedules:
      'This Temporal server has no Schedules: tracked segments are recomputed only per changed contact and by POST /segments/{id}/compute',
  });
}
