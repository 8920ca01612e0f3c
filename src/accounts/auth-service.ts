import type { Request, RequestHandler, Response } from 'express';
import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config';
import type { AuthTokenKind } from '../entities/auth-token';
import type { User } from '../entities/user';
import { ApiError, conflict, forbidden } from '../http/errors';
import { addressRateLimit } from '../http/middleware/rate-limit';
import type { AccountEmails } from './account-emails';
import type { AuthThrottle } from './auth-throttle';
import { verifyEmailAndJoin } from '../projects/members-queries';
import { hashPassword, verifyPassword } from './passwords';
import { randomToken } from './tokens';
import * as queries from './accounts-queries';
import { openSession } from './sessions';

const TOKEN_HOURS: Record<AuthTokenKind, number> = { VERIFY_EMAIL: 24, PASSWORD_RESET: 1 };

/** A user as the API shows it. */
export function userView(user: { id: string; email: string; emailVerified: boolean; createdAt: Date }) {
  return { id: user.id, email: user.email, emailVerified: user.emailVerified, createdAt: user.createdAt };
}

/** The 403 for creating an account while `DISABLE_SIGNUPS` is set. */
export const signupsDisabled = () => forbidden('Sign-ups are disabled on this Herald instance', 'SIGNUPS_DISABLED');

const invalidToken = () => new ApiError(400, 'INVALID_TOKEN', 'The token is invalid, expired or already used');

/** Sign-up, sign-in, email verification and password reset. */
export class AuthService {
  /** One budget per app of requests per client address to the sign-in and account-email endpoints. */
  private readonly perAddress: RequestHandler;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Config,
    private readonly emails: AccountEmails,
    private readonly throttle: AuthThrottle,
  ) {
    this.perAddress = addressRateLimit(dataSource, config.authRateLimitPerMinute);
  }

  /** Counts a request against its client address's budget (`AUTH_RATE_LIMIT_PER_MINUTE`, RateLimit-* headers); 429 past it. */
  async throttleAddress(req: Request, res: Response): Promise<void> {
    await this.perAddress(req, res, () => undefined);
  }

  private findByEmail(email: string): Promise<User | null> {
    return queries.findUserByEmail(this.dataSource, email);
  }

  /**
   * Creates an account, opens a session and sends the verification email. Pending invites for
   * the email take effect only once it is verified, so an address is never joined on a claim.
   * The email is counted before the password is hashed, so a spent budget costs no argon2 time.
   */
  async signup(email: string, password: string): Promise<{ user: User; sessionToken: string }> {
    if (this.config.disableSignups) throw signupsDisabled();
    await this.throttle.accountEmail(email);
    const passwordHash = await hashPassword(password);
    const id = await queries.insertPasswordUser(this.dataSource, email.trim(), passwordHash);
    if (!id) throw conflict('An account with this email already exists', 'EMAIL_TAKEN');
    const user = await queries.findUser(this.dataSource, id);
    const sessionToken = await openSession(this.dataSource, user.id);
    await this.emails.verification(user.email, await this.issueToken(user.id, 'VERIFY_EMAIL'));
    return { user, sessionToken };
  }

  /**
   * Checks credentials and opens a session; the same 401 for an unknown email and a wrong
   * password, and 429 once the email's failed sign-ins are spent, whatever the password.
   */
  async login(email: string, password: string): Promise<{ user: User; sessionToken: string }> {
    const giveBack = await this.throttle.loginAttempt(email);
    const user = await this.findByEmail(email);
    if (!(await verifyPassword(user?.passwordHash, password)) || !user) {
      throw new ApiError(401, 'INVALID_CREDENTIALS', 'Invalid email or password');
    }
    await giveBack();
    return { user, sessionToken: await openSession(this.dataSource, user.id) };
  }

  /** Revokes the session of a token, if there is one. */
  async logout(token: unknown): Promise<void> {
    if (typeof token === 'string' && token) await queries.closeSession(this.dataSource, token);
  }

  /** Sends a new verification link when the address belongs to an unverified account; every request counts towards the address's emails. */
  async requestVerification(email: string): Promise<void> {
    await this.throttle.accountEmail(email);
    const user = await this.findByEmail(email);
    if (!user || user.emailVerified) return;
    await this.emails.verification(user.email, await this.issueToken(user.id, 'VERIFY_EMAIL'));
  }

  /** Marks the email of the token's user verified; the project invites waiting for it take effect. */
  async verifyEmail(token: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await verifyEmailAndJoin(manager, await redeemToken(manager, token, 'VERIFY_EMAIL'));
    });
  }

  /** Sends a password reset link when the address has an account; every request counts towards the address's emails. */
  async requestPasswordReset(email: string): Promise<void> {
    await this.throttle.accountEmail(email);
    const user = await this.findByEmail(email);
    if (!user) return;
    await this.emails.passwordReset(user.email, await this.issueToken(user.id, 'PASSWORD_RESET'));
  }

  /**
   * Sets a new password from a reset token and signs out every session of that user. The token
   * came to the address, so the address counts as verified. The password is hashed only for a
   * usable token, so unknown tokens cost no argon2 time.
   */
  async resetPassword(token: string, password: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const userId = await redeemToken(manager, token, 'PASSWORD_RESET');
      await queries.setPasswordHash(manager, userId, await hashPassword(password));
      await verifyEmailAndJoin(manager, userId);
      await queries.closeAllSessions(manager, userId);
    });
  }

  private async issueToken(userId: string, kind: AuthTokenKind): Promise<string> {
    const token = randomToken();
    await queries.insertAuthToken(this.dataSource, userId, kind, token, new Date(Date.now() + TOKEN_HOURS[kind] * 3_600_000));
    return token;
  }
}

/** Uses a token once, atomically; returns its user. */
async function redeemToken(manager: EntityManager, token: string, kind: AuthTokenKind): Promise<string> {
  const userId = await queries.redeemAuthToken(manager, token, kind);
  if (!userId) throw invalidToken();
  return userId;
}
