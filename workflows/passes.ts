import { log, sleep, workflowInfo } from '@temporalio/workflow';

/** How a long-running workflow repeats its pass. */
export interface PassSchedule {
  /** The pause after a pass that left nothing more to do (or failed). */
  interval: Parameters<typeof sleep>[0];
  /** Passes before the run ends (the caller then continues as new), which keeps its history short. */
  passesPerRun: number;
  /** The warning logged when a pass fails after its retries. */
  failure: string;
}

/**
 * Runs `pass` again and again: at once when it answers true (more to do), else after the
 * interval; a failed pass is logged and the next one runs after the interval. Returns after
 * `passesPerRun` passes, or sooner when Temporal suggests continuing as new.
 */
export async function repeatPasses(pass: () => Promise<boolean>, schedule: PassSchedule): Promise<void> {
  for (let n = 0; n < schedule.passesPerRun && !workflowInfo().continueAsNewSuggested; n++) {
    let more = false;
    try {
      more = await pass();
    } catch (err) {
      log.warn(schedule.failure, { error: (err as Error).message });
    }
    if (!more) await sleep(schedule.interval);
  }
}
