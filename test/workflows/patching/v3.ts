import { deprecatePatch, proxyActivities, sleep } from '@temporalio/workflow';
import type { SeriesActivities } from './activities';

const { runStep } = proxyActivities<SeriesActivities>({ startToCloseTimeout: '1 minute' });

/** v3, once no execution started before v2 is left: `deprecatePatch` where `patched` was, the v1 path gone. */
export async function welcomeSeries(): Promise<string[]> {
  const ran = [await runStep('welcome')];
  deprecatePatch('welcome-series-tips');
  ran.push(await runStep('tips'));
  await sleep('1 day');
  ran.push(await runStep('reminder'));
  return ran;
}
