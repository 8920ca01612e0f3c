import type { DataSource, EntityManager } from 'typeorm';
import type { Config } from '../config';
import type { OAuthProviderId } from '../entities/oauth-account';
import { ApiError, badRequest, conflict, notFound } from '../http/errors';
import { signupsDisabled } from '../accounts/auth-service';
import { closeAllSessions, lockUserByEmail, setPasswordHash } from '../accounts/accounts-queries';
import { openSession } from '../accounts/sessions';
import { acceptInvites, verifyEmailAndJoin } from '../projects/members-queries';
import * as queries from './oauth-queries';
import { beginSignIn, finishSignIn, safeRedirect } from './oauth-state';
import { oauthProviders, type OAuthProfile, type OAuthProvider } from './providers';

/** What a provider's callback carries besides the state cookie. */
export interface OAuthCallback {
  code?: string;
  state?: string;
  error?: string;
}

/** Sign-in with GitHub and Google: the configured providers, starting an attempt, and finishing it into a session. */
export class OAuthService {
  private readonly providers: OAuthProvider[];

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: Config,
  ) {
    this.providers = oauthProviders(config.oauth);
  }

  private startUrl(id: string): string {
    return `${this.config.publicUrl}/auth/oauth/${id}`;
  }

  /** The configured providers, each with Herald's own start URL. */
  list() {
    return { providers: this.providers.map(({ id, name }) => ({ id, name, authorizeUrl: this.startUrl(id) })) };
  }

  /** A configured provider by id; 404 for any other. */
  provider(id: string): OAuthProvider {
    const found = this.providers.find((candidate) => candidate.id === id);
    if (!found) throw notFound('OAuth provider');
    return found;
  }

  /** Starts an attempt: the provider page to send the browser to and the state cookie remembering it. */
  begin(provider: OAuthProvider, redirect: unknown): { location: string; cookie: string } {
    const { state, cookie } = beginSignIn(this.config.sessionSecret, provider.id, safeRedirect(redirect));
    return { location: provider.authorizeUrl(`${this.startUrl(provider.id)}/callback`, state), cookie };
  }

  /** Finishes an attempt: checks its state, exchanges the code, signs the user in; answers the session and where to land. */
  async finish(provider: OAuthProvider, stateCookie: unknown, callback: OAuthCallback): Promise<{ sessionToken: string; location: string }> {
    const redirect = finishSignIn(this.config.sessionSecret, stateCookie, provider.id, callback.state);
    if (callback.error !== undefined) {
      throw new ApiError(400, 'OAUTH_DENIED', `${provider.name} did not sign you in (${callback.error.slice(0, 100)})`, {
        suggestion: `Approve Herald on the ${provider.name} page, or sign in another way.`,
      });
    }
    if (!callback.code) throw badRequest(`${provider.name} sent no authorization code`);
    const profile = await provider.profile(callback.code, `${this.startUrl(provider.id)}/callback`);
    const { sessionToken } = await this.signIn(provider.id, profile);
    return { sessionToken, location: `${this.config.publicUrl}${redirect}` };
  }

  /** Finds or creates the user for a provider profile, links the identity and opens a session. */
  async signIn(provider: OAuthProviderId, profile: OAuthProfile): Promise<{ userId: string; sessionToken: string }> {
    const userId = await this.dataSource.transaction(async (manager) => {
      const linked = await queries.findLink(manager, provider, profile.providerUserId);
      if (linked) {
        if (linked.email !== profile.email) await queries.updateLinkEmail(manager, provider, profile.providerUserId, profile.email);
        return linked.userId;
      }
      const id = await this.userForEmail(manager, profile.email);
      await queries.insertLink(manager, provider, profile.providerUserId, id, profile.email);
      return id;
    });
    return { userId, sessionToken: await openSession(this.dataSource, userId) };
  }

  /**
   * The user with this (provider-verified) email, now verified; else a new user with no
   * password who joins their pending invites, unless sign-ups are disabled.
   */
  private async userForEmail(manager: EntityManager, email: string): Promise<string> {
    const existing = await lockUserByEmail(manager, email);
    if (existing) {
      if (!existing.email_verified) await claimUnverified(manager, existing.id);
      return existing.id;
    }
    if (this.config.disableSignups) throw signupsDisabled();
    const created = await queries.insertVerifiedUser(manager, email);
    if (!created) throw conflict('An account with this email was created at the same moment; sign in again', 'EMAIL_TAKEN');
    await acceptInvites(manager, created, email);
    return created;
  }
}

/**
 * Hands an account registered with an unverified email to the address's proven owner: whoever
 * registered it may not own the address, so its password and sessions go; then the email is
 * verified and the invites waiting for it apply.
 */
async function claimUnverified(manager: EntityManager, userId: string): Promise<void> {
  await setPasswordHash(manager, userId, null);
  await closeAllSessions(manager, userId);
  await verifyEmailAndJoin(manager, userId);
}
