import type { DataSource } from 'typeorm';
import { randomToken } from './tokens';
import { insertSession } from './accounts-queries';

export const SESSION_COOKIE = 'herald_session';
export const SESSION_DAYS = 30;

/** Opens a session for a user and returns the token to put in the cookie. */
export async function openSession(dataSource: DataSource, userId: string): Promise<string> {
  const token = randomToken();
  await insertSession(dataSource, userId, token, new Date(Date.now() + SESSION_DAYS * 86_400_000));
  return token;
}
