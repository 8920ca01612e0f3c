import type { EntityManager } from 'typeorm';
import { ApiError } from '../http/errors';
import { countUsage, currentPeriod, findLimits, lockCategory, type BillingCategory, type BillingPeriod } from './billing-queries';

/**
 * Enforcement of the billing caps where the work happens. A writing transaction does its
 * inserts first, then (only when the project caps the category) takes the category's
 * advisory lock and counts in a new statement: under READ COMMITTED that count sees every
 * write committed before, including one that committed while this transaction waited for
 * the lock. Over the cap it throws and the transaction rolls back, so the cap is exact
 * under concurrency and costs nothing to a project without one.
 */

/** A category's cap and usage at one moment. */
export interface CategoryUsage {
  category: BillingCategory;
  limit: number;
  used: number;
  remaining: number;
  period: BillingPeriod;
}

/** The month of a period as people say it, e.g. "November 2026". */
export function periodName(period: BillingPeriod): string {
  return period.start.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** A count as people write it, e.g. "1,000". */
export const formatted = (n: number) => n.toLocaleString('en-US');

/** What a cap says in a sentence, e.g. "1,000 emails for November 2026". */
export function describeLimit(usage: Pick<CategoryUsage, 'category' | 'limit' | 'period'>): string {
  const count = `${formatted(usage.limit)} ${usage.category}`;
  return usage.category === 'emails' ? `${count} for ${periodName(usage.period)}` : count;
}

/** What the project may do and did in the category, as a sentence. */
function allowance(usage: CategoryUsage): string {
  return usage.category === 'emails'
    ? `the project may send ${formatted(usage.limit)} emails in ${periodName(usage.period)} and has used ${formatted(usage.used)}`
    : `the project may store ${formatted(usage.limit)} contacts and stores ${formatted(usage.used)}`;
}

/**
 * A refusal because a billing cap is reached: 403 `BILLING_LIMIT_EXCEEDED`. `usage.used` is
 * what the project used without the refused work, `requested` what that work needed.
 */
export class BillingLimitExceededError extends ApiError {
  constructor(
    readonly usage: CategoryUsage,
    readonly requested: number,
  ) {
    super(403, 'BILLING_LIMIT_EXCEEDED', `Billing limit exceeded: ${allowance(usage)}${requested > 0 ? `; this needs ${formatted(requested)} more` : ''}.`, {
      details: {
        category: usage.category,
        limit: usage.limit,
        used: usage.used,
        requested,
        period: { start: usage.period.start.toISOString(), end: usage.period.end.toISOString() },
      },
      suggestion:
        usage.category === 'emails'
          ? 'Raise or remove the emails limit (PUT /users/@me/projects/{id}/billing-limits), or wait for the next billing period.'
          : 'Delete contacts you no longer need, or raise or remove the contacts limit (PUT /users/@me/projects/{id}/billing-limits).',
    });
  }
}

/** The category's usage, counted under its lock when `lock` is set; undefined (and no lock) when the project has no cap for it. */
async function usageOf(manager: EntityManager, projectId: string, category: BillingCategory, lock: boolean): Promise<CategoryUsage | undefined> {
  const limit = (await findLimits(manager, projectId))?.[category] ?? null;
  if (limit === null) return undefined;
  if (lock) await lockCategory(manager, projectId, category);
  const used = await countUsage(manager, projectId, category);
  return { category, limit, used, remaining: Math.max(0, limit - used), period: await currentPeriod(manager) };
}

/**
 * The category's usage counted under its lock, held until the transaction ends (so nobody
 * else adds to it meanwhile); undefined, and no lock, when the project has no cap for it.
 */
export function lockedUsage(manager: EntityManager, projectId: string, category: BillingCategory): Promise<CategoryUsage | undefined> {
  return usageOf(manager, projectId, category, true);
}

/** Throws BillingLimitExceededError when the `added` rows the transaction wrote take the category past the project's cap. */
async function assertWithin(manager: EntityManager, projectId: string, category: BillingCategory, added: number): Promise<void> {
  const usage = await lockedUsage(manager, projectId, category);
  if (!usage || usage.used <= usage.limit) return;
  const used = usage.used - added;
  throw new BillingLimitExceededError({ ...usage, used, remaining: Math.max(0, usage.limit - used) }, added);
}

/** After storing `added` emails that will be sent: throws BillingLimitExceededError when they take the project past its cap for the period. */
export function assertWithinEmailLimit(manager: EntityManager, projectId: string, added: number): Promise<void> {
  return assertWithin(manager, projectId, 'emails', added);
}

/** After creating `added` contacts: throws BillingLimitExceededError when they take the project past its cap. */
export function assertWithinContactLimit(manager: EntityManager, projectId: string, added: number): Promise<void> {
  return assertWithin(manager, projectId, 'contacts', added);
}

/** Throws BillingLimitExceededError when the project has no email left this period (a check before starting work, no lock). */
export async function assertEmailsLeft(manager: EntityManager, projectId: string): Promise<void> {
  const usage = await usageOf(manager, projectId, 'emails', false);
  if (usage && usage.remaining === 0) throw new BillingLimitExceededError(usage, 0);
}
