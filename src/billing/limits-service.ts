import type { DataSource } from 'typeorm';
import type { MemberRole } from '../entities/project-member';
import { requireManager } from '../projects/roles';
import { countUsage, currentPeriod, findLimits, saveLimits, type BillingCategory, type BillingPeriod } from './billing-queries';

/** Changes to a project's caps: a number caps the category, null removes its cap, undefined keeps it. */
export type LimitChanges = Partial<Record<BillingCategory, number | null>>;

const periodView = (period: BillingPeriod) => ({ start: period.start.toISOString(), end: period.end.toISOString() });

/** A project's billing caps (`billing-limits`) and its usage in the current period (`billing-consumption`). */
export class BillingLimitsService {
  constructor(private readonly dataSource: DataSource) {}

  /** The caps, null for a category without one. */
  async get(projectId: string) {
    const { manager } = this.dataSource;
    const limits = await findLimits(manager, projectId);
    return {
      period: periodView(await currentPeriod(manager)),
      limits: { emails: limits?.emails ?? null, contacts: limits?.contacts ?? null },
      updatedAt: limits?.updatedAt.toISOString() ?? null,
    };
  }

  /** Changes the caps; OWNER or ADMIN only. */
  async update(projectId: string, role: MemberRole, changes: LimitChanges) {
    requireManager(role);
    await saveLimits(this.dataSource.manager, projectId, changes);
    return this.get(projectId);
  }

  /** What the project used this period, counted from its stored emails and contacts, beside its caps. */
  async consumption(projectId: string) {
    const { manager } = this.dataSource;
    const limits = await findLimits(manager, projectId);
    const period = await currentPeriod(manager);
    const usage = async (category: BillingCategory) => {
      const used = await countUsage(manager, projectId, category);
      const limit = limits?.[category] ?? null;
      return { used, limit, remaining: limit === null ? null : Math.max(0, limit - used) };
    };
    return { period: periodView(period), emails: await usage('emails'), contacts: await usage('contacts') };
  }
}
