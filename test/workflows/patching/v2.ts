import { patched, proxyActivities, sleep } from '@temporalio/workflow';
import type { SeriesActivities } from './activities';

const { runStep } = proxyActivities<SeriesActivities>({ startToCloseTimeout: '1 minute' });

/**
 * v2: a `tips` step after the welcome, behind `patched('welcome-series-tips')` (the README's
 * policy): executions that started on v1 replay without it and keep the v1 path; new ones
 * record the patch marker and take the new path.
 */
export async function welcomeSeries(): Promise<string[]> {
  const ran = [await runStep('welcome')];
  if (patched('welcome-series-tips')) ran.push(await runStep('tips'));
  await sleep('1 day');
  ran.push(await runStep('reminder'));
  return ran;
}
