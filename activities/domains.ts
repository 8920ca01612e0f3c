import type { DataSource } from 'typeorm';
import type { Config } from '../src/config';
import { createDomainsService, type DomainBatchResult } from '../src/domains/domains-service';

/** Activities of the background domain check. */
export function createDomainActivities(deps: { dataSource: DataSource; config: Config }) {
  const domains = createDomainsService(deps.config, deps.dataSource);
  return {
    /** Checks the next `limit` PENDING domains after `after` over DNS and stores what was found; removes lapsed claims. */
    async checkPendingDomainBatch(input: { after: string | null; limit: number }): Promise<DomainBatchResult> {
      return domains.checkPendingBatch(input.after, input.limit);
    },
  };
}
