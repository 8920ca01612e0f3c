import type { DataSource, EntityManager } from 'typeorm';
import { Session } from '../entities/session';
import type { SessionUser } from '../http/request-context';
import { randomToken, sha256 } from '../runtime/secrets';

export const SESSION_COOKIE = 'herald_session';
export const SESSION_DAYS = 30;

/** Opens a session for a user and returns the token to put in the cookie. */
export async function openSession(dataSource: DataSource, userId: string): Promise<string> {
  const token = randomToken();
  await dataSource.getRepository(Session).insert({
    userId,
    tokenHash: sha256(token),
    expiresAt: new Date(Date.now() + SESSION_DAYS * 86_400_000),
  });
  return token;
}

/** The user behind a session token, if the session exists and has not expired. */
export async function userForSession(dataSource: DataSource, token: string): Promise<SessionUser | undefined> {
  const rows: { id: string; email: string; email_verified: boolean; created_at: Date; session_id: string }[] =
    await dataSource.query(
      `SELECT u.id, u.email, u.email_verified, u.created_at, s.id AS session_id
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now()`,
      [sha256(token)],
    );
  const row = rows[0];
  return row && {
    id: row.id,
    email: row.email,
    emailVerified: row.email_verified,
    createdAt: row.created_at,
    sessionId: row.session_id,
  };
}

/** Revokes one session by its token. */
export async function closeSession(dataSource: DataSource, token: string): Promise<void> {
  await dataSource.getRepository(Session).delete({ tokenHash: sha256(token) });
}

/** Revokes every session of a user (after a password reset, or when the owner of the address takes the account over). */
export async function closeAllSessions(db: DataSource | EntityManager, userId: string): Promise<void> {
  await db.getRepository(Session).delete({ userId });
}
