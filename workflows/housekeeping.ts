import { continueAsNew, log, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { createHousekeepingActivities } from '../activities/housekeeping';

type HousekeepingActivities = ReturnType<typeof createHousekeepingActivities>;

/** Days one run covers before it continues as new, which keeps its history short. */
export const HOUSEKEEPING_DAYS_PER_RUN = 30;

/** A pass is a few indexed deletes; after five failed attempts the pass is skipped until tomorrow. */
const { purgeExpiredRecords } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 5 },
});

/** `housekeeping`: once a day, forever, purges expired request bookkeeping (keys, windows, sessions, tokens) and unmatched mail events. */
export async function housekeeping(): Promise<never> {
  for (let day = 0; day < HOUSEKEEPING_DAYS_PER_RUN && !workflowInfo().continueAsNewSuggested; day++) {
    try {
      const purged = await purgeExpiredRecords();
      log.info('Purged expired records', { ...purged });
    } catch (err) {
      log.warn('Housekeeping pass failed; the next one runs tomorrow', { error: (err as Error).message });
    }
    await sleep('1 day');
  }
  return await continueAsNew<typeof housekeeping>();
}
