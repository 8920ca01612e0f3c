import type { EntityManager } from 'typeorm';
import { OAuthAccount, type OAuthProviderId } from '../entities/oauth-account';

/** A provider identity's link: the user it signs in and the email last seen for it. */
export function findLink(manager: EntityManager, provider: OAuthProviderId, providerUserId: string): Promise<OAuthAccount | null> {
  return manager.findOneBy(OAuthAccount, { provider, providerUserId });
}

/** Records the email a provider now reports for a linked identity. */
export async function updateLinkEmail(manager: EntityManager, provider: OAuthProviderId, providerUserId: string, email: string): Promise<void> {
  await manager.update(OAuthAccount, { provider, providerUserId }, { email });
}

/** Links a provider identity to a user, unless a concurrent sign-in linked it first. */
export async function insertLink(manager: EntityManager, provider: OAuthProviderId, providerUserId: string, userId: string, email: string): Promise<void> {
  await manager.query(
    `INSERT INTO oauth_accounts (provider, provider_user_id, user_id, email) VALUES ($1, $2, $3, $4)
     ON CONFLICT (provider, provider_user_id) DO NOTHING`,
    [provider, providerUserId, userId, email],
  );
}

/** Creates a user with a provider-verified email and no password; undefined when the email was taken meanwhile. */
export async function insertVerifiedUser(manager: EntityManager, email: string): Promise<string | undefined> {
  const created: { id: string }[] = await manager.query(
    `INSERT INTO users (email, email_verified) VALUES ($1, true)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
    [email],
  );
  return created[0]?.id;
}
