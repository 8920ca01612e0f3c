import { Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { ContactsService } from '../src/contacts/contacts-service';
import { SegmentMembership, type ComputeResult } from '../src/segments/membership';
import { trackedSegmentIds } from '../src/segments/segments-queries';

/** Activities of segment computations: one tracked segment, and paging through all of them. */
export function createSegmentActivities(deps: { dataSource: DataSource; contacts: ContactsService }) {
  const membership = new SegmentMembership(deps.dataSource, deps.contacts);
  return {
    /** Brings a tracked segment's stored membership in line with its condition, heartbeating each page. */
    async computeSegmentMembership(segmentId: string): Promise<ComputeResult> {
      return membership.compute(segmentId, (moved) => Context.current().heartbeat(moved));
    },

    /** The next `limit` tracked segments of every project after `after`, in id order. */
    async listTrackedSegments(input: { after: string | null; limit: number }): Promise<string[]> {
      return trackedSegmentIds(deps.dataSource.manager, input.after, input.limit);
    },
  };
}
