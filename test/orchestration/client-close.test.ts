import { connectTemporal } from '../../src/orchestration/client';
import { testTemporalAddress } from '../support/worker';

const settledWithin = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('closing the Temporal client', () => {
  it('fails the calls still queued instead of retrying them on the closed channel', async () => {
    for (let round = 0; round < 5; round++) {
      const temporal = await connectTemporal(testTemporalAddress(), 'default');
      const calls = Array.from({ length: 20 }, () =>
        temporal.client.workflowService.getSystemInfo({}).then(
          () => 'answered',
          (error: Error) => error.message,
        ),
      );
      await temporal.close();
      // The SDK's retry waits about 100 ms before trying again; past that, nothing may be left waiting.
      const outcomes = await settledWithin(Promise.all(calls), 1000);
      expect(outcomes).not.toBe('pending');
      for (const outcome of outcomes as string[]) {
        expect(outcome === 'answered' || outcome.startsWith('14 UNAVAILABLE')).toBe(true);
      }
    }
  });
});
