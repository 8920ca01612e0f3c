import { execFile } from 'node:child_process';
import { limitWorkerHeapGrowth } from '../../src/orchestration/worker-heap';
import { WORKER_PROCESS_ARGS } from '../../src/orchestration/workflow-thread-guard';

/**
 * A campaign batch's allocation pattern in small: about 30 MB of objects alive at any time,
 * each living long enough to be promoted to the old generation before it dies. Prints the
 * highest heap size V8 reserved meanwhile, in MB.
 */
const CHURN = `
const v8 = require('node:v8');
let peak = 0;
const recent = new Array(200000);
for (let i = 0; i < 4000000; i++) {
  recent[i % recent.length] = { i, text: 'x'.repeat(64) + i, list: [i, i + 1, i + 2] };
  if (i % 1000 === 0) peak = Math.max(peak, v8.getHeapStatistics().total_heap_size);
}
console.log(Math.round(peak / 1048576));
`;

/** The peak heap, in MB, of CHURN run in a Node process started with these arguments. */
function peakHeapMb(args: string[]): Promise<number> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [...args, '-e', CHURN], (err, stdout) => (err ? reject(err) : resolve(Number(stdout.trim())))),
  );
}

describe('the worker heap growth limit', () => {
  it('keeps a worker process heap near its live objects where V8 alone lets garbage pile up', async () => {
    const [limited, unlimited] = await Promise.all([
      peakHeapMb(WORKER_PROCESS_ARGS),
      // The command line's own setting wins: 0 is V8's own choice.
      peakHeapMb(['--heap-growing-percent=0', ...WORKER_PROCESS_ARGS]),
    ]);
    expect(limited).toBeGreaterThan(30);
    expect(limited).toBeLessThan(unlimited * 0.75);
  }, 60_000);

  it('leaves a growing factor given on the command line alone', () => {
    expect(limitWorkerHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(limitWorkerHeapGrowth(['--heap-growing-percent', '25'])).toBe(false);
    expect(limitWorkerHeapGrowth(['--heap_growing_percent=25'])).toBe(false);
  });
});
