import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type Workflow } from '@temporalio/client';
import { logger } from '../logger';
import { GrpcStatus, grpcCode } from './grpc-status';

/**
 * How long a schedule's calls are tried again while the server answers them with a timeout or
 * as unavailable: a dev server restarted after a crash takes a while to bring up the worker
 * that answers for schedules (describing one queries its workflow), and start-up waits for it
 * instead of failing.
 */
export const SCHEDULE_RETRY_MS = 120_000;

/** A schedule that starts one workflow every interval, skipping a run while the previous one still runs. */
export interface IntervalSchedule {
  scheduleId: string;
  everyMinutes: number;
  /** The workflow function each run starts, by reference. */
  workflow: Workflow;
  /** The one line the Temporal UI shows for the schedule's runs. */
  summary: string;
  taskQueue: string;
  /** What is lost on a Temporal server without Schedules, logged as a warning. */
  withoutSchedules: string;
}

/**
 * Creates the schedule, or brings an existing one to the configured interval; safe to call on
 * every start-up. A server without Schedules (the in-memory test server `npm start` falls back to)
 * is told about with the schedule's warning instead. A call the server answers with a timeout or
 * as unavailable is made again, for up to `retryForMs`.
 */
export async function ensureIntervalSchedule(client: Client, schedule: IntervalSchedule, retryForMs = SCHEDULE_RETRY_MS): Promise<void> {
  const deadline = Date.now() + retryForMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await createOrUpdate(client, schedule);
      return;
    } catch (err) {
      const code = grpcCode(err);
      if (code === GrpcStatus.UNIMPLEMENTED) {
        logger.warn(schedule.withoutSchedules);
        return;
      }
      if ((code !== GrpcStatus.DEADLINE_EXCEEDED && code !== GrpcStatus.UNAVAILABLE) || Date.now() >= deadline) throw err;
      logger.warn({ scheduleId: schedule.scheduleId, attempt, err: (err as Error).message }, 'Temporal did not answer for the schedule in time; trying again');
      await new Promise((resolve) => setTimeout(resolve, Math.min(attempt, 5) * 1000));
    }
  }
}

/** One attempt: creates the schedule, or updates the existing one's interval. */
async function createOrUpdate(client: Client, schedule: IntervalSchedule): Promise<void> {
  const spec = { intervals: [{ every: schedule.everyMinutes * 60_000 }] };
  try {
    await client.schedule.create({
      scheduleId: schedule.scheduleId,
      spec,
      action: {
        type: 'startWorkflow',
        workflowType: schedule.workflow,
        workflowId: schedule.scheduleId,
        taskQueue: schedule.taskQueue,
        staticSummary: schedule.summary,
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({ ...previous, spec }));
  }
}
