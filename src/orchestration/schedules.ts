import { isGrpcServiceError, ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type Workflow } from '@temporalio/client';
import { logger } from '../logger';

const GRPC_UNIMPLEMENTED = 12;

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
 * is told about with the schedule's warning instead.
 */
export async function ensureIntervalSchedule(client: Client, schedule: IntervalSchedule): Promise<void> {
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
    if (err instanceof ScheduleAlreadyRunning) {
      await client.schedule.getHandle(schedule.scheduleId).update((previous) => ({ ...previous, spec }));
      return;
    }
    const cause = (err as { cause?: unknown }).cause;
    if (!isGrpcServiceError(cause) || cause.code !== GRPC_UNIMPLEMENTED) throw err;
    logger.warn(schedule.withoutSchedules);
  }
}
