import { log, proxyActivities } from '@temporalio/workflow';
import type { createDomainActivities } from '../activities/domains';
import type { DomainBatchResult } from '../src/domains/domains-service';
import type { DomainCheckSummary } from './shared';

type DomainActivities = ReturnType<typeof createDomainActivities>;

/** How many pending domains one activity checks; the workflow pages through all of them. */
export const DOMAIN_CHECK_BATCH_SIZE = 50;

/** A batch is at most a few rounds of DNS lookups (5 s each); a failed one is retried, then the run gives up until the next. */
const { checkPendingDomainBatch } = proxyActivities<DomainActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

/**
 * `checkPendingDomains`: checks every PENDING domain over DNS once, batch by batch, in id order,
 * and removes the claims PENDING for too long (with their identities).
 */
export async function checkPendingDomains(): Promise<DomainCheckSummary> {
  const summary: DomainCheckSummary = { checked: 0, verified: 0, lapsed: 0 };
  let after: string | null = null;
  do {
    const batch: DomainBatchResult = await checkPendingDomainBatch({ after, limit: DOMAIN_CHECK_BATCH_SIZE });
    summary.checked += batch.checked;
    summary.verified += batch.verified;
    summary.lapsed += batch.lapsed;
    after = batch.next;
  } while (after !== null);
  log.info('Checked pending domains', { ...summary });
  return summary;
}
