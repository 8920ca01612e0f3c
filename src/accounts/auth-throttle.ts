import type { DataSource } from 'typeorm';
import { rateLimited } from '../http/errors';
import { take, type Budget } from '../rate-limits/sliding-budget';
import { emailBudgetKey } from './accounts-queries';

/** At most 10 failed sign-ins per account email in 15 minutes (CONTRACT 15). */
const FAILED_LOGINS: Budget = { name: 'failed-logins', limit: 10, seconds: 15 * 60 };
/** At most 5 account emails (verification, password reset, invitation) to one address per hour (CONTRACT 15). */
const ACCOUNT_EMAILS: Budget = { name: 'account-emails', limit: 5, seconds: 60 * 60 };

const minutes = (seconds: number) => `${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}`;

/**
 * The per-account-email throttles of `/auth`: password guessing and mail bombing. Both count
 * an address whether or not it has an account, so their answers reveal no account. Budgets are
 * kept by a digest of the address lower-cased by Postgres, as the account lookup compares it
 * (`lower(email)`): a variant the lookup takes for the same account (a case or Unicode variant
 * such as `İ` for `i`) shares its budget. The table holds no addresses.
 */
export class AuthThrottle {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Counts a sign-in attempt for an email before its password is checked (so a spent budget
   * costs no argon2 time); 429 once 10 failed in 15 minutes. Answers the call that gives the
   * attempt back when the password turns out right.
   */
  async loginAttempt(email: string): Promise<() => Promise<void>> {
    const outcome = await take(this.dataSource, FAILED_LOGINS, await emailBudgetKey(this.dataSource, email));
    if (!outcome.taken) {
      throw rateLimited(
        `Too many failed sign-ins for this email address; try again in ${minutes(outcome.retryAfter)}`,
        outcome.retryAfter,
        'Wait, or set a new password with POST /auth/request-password-reset.',
      );
    }
    return outcome.giveBack;
  }

  /** Counts one account email to an address before it is sent; 429 past 5 in an hour. */
  async accountEmail(email: string): Promise<void> {
    const outcome = await take(this.dataSource, ACCOUNT_EMAILS, await emailBudgetKey(this.dataSource, email));
    if (!outcome.taken) {
      throw rateLimited(
        `Too many emails were sent to ${email.trim()} in the last hour; try again in ${minutes(outcome.retryAfter)}`,
        outcome.retryAfter,
        'Look for the emails already sent (and the spam folder) before asking for another.',
      );
    }
  }
}
