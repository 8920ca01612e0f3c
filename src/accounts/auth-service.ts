import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config';
import { AuthToken, type AuthTokenKind } from '../entities/auth-token';
import { User } from '../entities/user';
import { ApiError, conflict, forbidden } from '../http/errors';
import type { AccountEmails } from './account-emails';
import type { AuthThrottle } from './auth-throttle';
import { verifyEmailAndJoin } from '../projects/members-service';
import { hashPassword, verifyPassword } from './passwords';
import { randomToken, sha256 } from '../runtime/secrets';
import { closeAllSessions, openSession } from './sessions';

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
  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Config,
    private readonly emails: AccountEmails,
    private readonly throttle: AuthThrottle,
  ) {}

  private get users() {
    return this.dataSource.getRepository(User);
  }

  private findByEmail(email: string): Promise<User | null> {
    return this.users.createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
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
    const rows: { id: string }[] = await this.dataSource.query(
      `INSERT INTO users (email, password_hash) VALUES ($1, $2)
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
      [email.trim(), passwordHash],
    );
    if (rows.length === 0) throw conflict('An account with this email already exists', 'EMAIL_TAKEN');
    const user = await this.users.findOneByOrFail({ id: rows[0].id });
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
      await manager.update(User, { id: userId }, { passwordHash: await hashPassword(password) });
      await verifyEmailAndJoin(manager, userId);
      await closeAllSessions(manager, userId);
    });
  }

  private async issueToken(userId: string, kind: AuthTokenKind): Promise<string> {
    const token = randomToken();
    await this.dataSource.getRepository(AuthToken).insert({
      userId,
      kind,
      tokenHash: sha256(token),
      expiresAt: new Date(Date.now() + TOKEN_HOURS[kind] * 3_600_000),
    });
    return token;
  }
}

/** Uses a token once, atomically; returns its user. */
async function redeemToken(manager: EntityManager, token: string, kind: AuthTokenKind): Promise<string> {
  const [rows]: [{ user_id: string }[], number] = await manager.query(
    `UPDATE auth_tokens SET used_at = now()
      WHERE token_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`,
    [sha256(token), kind],
  );
  if (!rows?.length) throw invalidToken();
  return rows[0].user_id;
}
