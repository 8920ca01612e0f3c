import type { DataSource, EntityManager } from 'typeorm';
import { OAuthAccount, type OAuthProviderId } from '../entities/oauth-account';
import { User } from '../entities/user';
import { conflict } from '../http/errors';
import { signupsDisabled } from '../accounts/auth-service';
import { acceptInvites, verifyEmailAndJoin } from '../projects/members-service';
import { closeAllSessions, openSession } from '../accounts/sessions';
import type { OAuthProfile } from './providers';

/** Signs in the user behind a provider identity: the linked one, the one with the verified email, or a new one. */
export class OAuthService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly disableSignups: boolean,
  ) {}

  /** Finds or creates the user for a provider profile, links the identity and opens a session. */
  async signIn(provider: OAuthProviderId, profile: OAuthProfile): Promise<{ userId: string; sessionToken: string }> {
    const userId = await this.dataSource.transaction(async (manager) => {
      const key = { provider, providerUserId: profile.providerUserId };
      const linked = await manager.findOneBy(OAuthAccount, key);
      if (linked) {
        if (linked.email !== profile.email) await manager.update(OAuthAccount, key, { email: profile.email });
        return linked.userId;
      }
      const id = await this.userForEmail(manager, profile.email);
      await manager.query(
        `INSERT INTO oauth_accounts (provider, provider_user_id, user_id, email) VALUES ($1, $2, $3, $4)
         ON CONFLICT (provider, provider_user_id) DO NOTHING`,
        [provider, profile.providerUserId, id, profile.email],
      );
      return id;
    });
    return { userId, sessionToken: await openSession(this.dataSource, userId) };
  }

  /**
   * The user with this (provider-verified) email, now verified; else a new user with no
   * password who joins their pending invites, unless sign-ups are disabled.
   */
  private async userForEmail(manager: EntityManager, email: string): Promise<string> {
    const [existing]: { id: string; email_verified: boolean }[] = await manager.query(
      'SELECT id, email_verified FROM users WHERE lower(email) = lower($1) FOR UPDATE',
      [email],
    );
    if (existing) {
      if (!existing.email_verified) await claimUnverified(manager, existing.id);
      return existing.id;
    }
    if (this.disableSignups) throw signupsDisabled();
    const created: { id: string }[] = await manager.query(
      `INSERT INTO users (email, email_verified) VALUES ($1, true)
       ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
      [email],
    );
    if (created.length === 0) throw conflict('An account with this email was created at the same moment; sign in again', 'EMAIL_TAKEN');
    await acceptInvites(manager, created[0].id, email);
    return created[0].id;
  }
}

/**
 * Hands an account registered with an unverified email to the address's proven owner: whoever
 * registered it may not own the address, so its password and sessions go; then the email is
 * verified and the invites waiting for it apply.
 */
async function claimUnverified(manager: EntityManager, userId: string): Promise<void> {
  await manager.update(User, { id: userId }, { passwordHash: null });
  await closeAllSessions(manager, userId);
  await verifyEmailAndJoin(manager, userId);
}
