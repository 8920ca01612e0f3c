import { proxyActivities, sleep } from '@temporalio/workflow';
import type { SeriesActivities } from './activities';

const { runStep } = proxyActivities<SeriesActivities>({ startToCloseTimeout: '1 minute' });

/** v2 as it must not be written: the `tips` step added without `patched()`. */
export async function welcomeSeries(): Promise<string[]> {
  const ran = [await runStep('welcome')];
  ran.push(await runStep('tips'));
  await sleep('1 day');
  ran.push(await runStep('reminder'));
  return ran;
}
