import { log, proxyActivities } from '@temporalio/workflow';
import type { createSegmentActivities } from '../activities/segments';
import type { RecomputeSummary, SegmentComputeResult } from './shared';

type SegmentActivities = ReturnType<typeof createSegmentActivities>;

/** How many tracked segments one listing returns; the recompute pages through all of them. */
export const SEGMENT_LIST_BATCH_SIZE = 100;

/** A computation moves contacts in pages of a few hundred milliseconds each and heartbeats after every page. */
const { computeSegmentMembership } = proxyActivities<SegmentActivities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

const { listTrackedSegments } = proxyActivities<SegmentActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 5 },
});

/** `segment/<segmentId>`: computes one tracked segment, firing its entry and exit events. */
export async function computeSegment(segmentId: string): Promise<SegmentComputeResult> {
  return computeSegmentMembership(segmentId);
}

/** The schedule's run: computes every tracked segment of every project; one that fails does not stop the others. */
export async function recomputeTrackedSegments(): Promise<RecomputeSummary> {
  const summary: RecomputeSummary = { segments: 0, failed: 0, entered: 0, exited: 0 };
  let after: string | null = null;
  for (;;) {
    const ids: string[] = await listTrackedSegments({ after, limit: SEGMENT_LIST_BATCH_SIZE });
    for (const segmentId of ids) {
      try {
        const result = await computeSegmentMembership(segmentId);
        summary.entered += result.entered;
        summary.exited += result.exited;
        summary.segments += 1;
      } catch (err) {
        summary.failed += 1;
        log.warn('Segment computation failed; the next run tries again', { segmentId, error: (err as Error).message });
      }
    }
    if (ids.length < SEGMENT_LIST_BATCH_SIZE) break;
    after = ids[ids.length - 1];
  }
  log.info('Recomputed tracked segments', { ...summary });
  return summary;
}
