import type { DataSource, EntityManager } from 'typeorm';
import { AuthToken, type AuthTokenKind } from '../entities/auth-token';
import { Session } from '../entities/session';
import { User } from '../entities/user';
import type { SessionUser } from '../http/request-context';
import { sha256 } from './tokens';

type Db = DataSource | EntityManager;

/** The account whose email is this one, compared as Postgres lower-cases it. */
export function findUserByEmail(db: Db, email: string): Promise<User | null> {
  return db.getRepository(User).createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
}

/** The account with this id; throws when there is none. */
export function findUser(db: Db, id: string): Promise<User> {
  return db.getRepository(User).findOneByOrFail({ id });
}

/** The user with this email, locked for the transaction. */
export async function lockUserByEmail(manager: EntityManager, email: string): Promise<{ id: string; email: string; email_verified: boolean } | undefined> {
  const [row]: { id: string; email: string; email_verified: boolean }[] = await manager.query(
    'SELECT id, email, email_verified FROM users WHERE lower(email) = lower($1) FOR UPDATE',
    [email],
  );
  return row;
}

/** Creates an account with a password (unverified); undefined when the email is taken. */
export async function insertPasswordUser(db: Db, email: string, passwordHash: string): Promise<string | undefined> {
  const rows: { id: string }[] = await db.query(
    `INSERT INTO users (email, password_hash) VALUES ($1, $2)
     ON CONFLICT ((lower(email))) DO NOTHING RETURNING id`,
    [email, passwordHash],
  );
  return rows[0]?.id;
}

/** Sets (or, with null, removes) a user's password. */
export async function setPasswordHash(db: Db, userId: string, passwordHash: string | null): Promise<void> {
  await db.getRepository(User).update({ id: userId }, { passwordHash });
}

/** Stores the digest of an emailed token. */
export async function insertAuthToken(db: Db, userId: string, kind: AuthTokenKind, token: string, expiresAt: Date): Promise<void> {
  await db.getRepository(AuthToken).insert({ userId, kind, tokenHash: sha256(token), expiresAt });
}

/** Uses a token once, atomically; answers its user, or undefined when it is unknown, used or expired. */
export async function redeemAuthToken(manager: EntityManager, token: string, kind: AuthTokenKind): Promise<string | undefined> {
  const [rows]: [{ user_id: string }[], number] = await manager.query(
    `UPDATE auth_tokens SET used_at = now()
      WHERE token_hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`,
    [sha256(token), kind],
  );
  return rows?.[0]?.user_id;
}

/** The budget key of an address: a digest of it lower-cased by Postgres, as the account lookup compares it. */
export async function emailBudgetKey(db: Db, email: string): Promise<string> {
  const [row]: { key: string }[] = await db.query(`SELECT encode(sha256(convert_to(lower(btrim($1)), 'UTF8')), 'hex') AS key`, [email]);
  return row.key;
}

/** Stores the digest of a session token. */
export async function insertSession(db: Db, userId: string, token: string, expiresAt: Date): Promise<void> {
  await db.getRepository(Session).insert({ userId, tokenHash: sha256(token), expiresAt });
}

/** The user behind a session token, if the session exists and has not expired. */
export async function userForSession(db: Db, token: string): Promise<SessionUser | undefined> {
  const rows: { id: string; email: string; email_verified: boolean; created_at: Date; session_id: string }[] = await db.query(
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
export async function closeSession(db: Db, token: string): Promise<void> {
  await db.getRepository(Session).delete({ tokenHash: sha256(token) });
}

/** Revokes every session of a user (after a password reset, or when the owner of the address takes the account over). */
export async function closeAllSessions(db: Db, userId: string): Promise<void> {
  await db.getRepository(Session).delete({ userId });
}
