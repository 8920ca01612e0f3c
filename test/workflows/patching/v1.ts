import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SeriesActivities } from './activities';

const { runStep } = proxyActivities<SeriesActivities>({ startToCloseTimeout: '1 minute' });

/** v1, in production with executions in flight: a welcome, a day's wait, a reminder. */
export async function welcomeSeries(): Promise<string[]> {
  const ran = [await runStep('welcome')];
  await sleep('1 day');
  ran.push(await runStep('reminder'));
  return ran;
}
