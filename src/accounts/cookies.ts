import type { CookieOptions, Response } from 'express';
import type { Config } from '../config';
import { SESSION_COOKIE, SESSION_DAYS } from './sessions';

/** The attributes of Herald's cookies: HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https. */
export function cookieOptions(config: Config): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicUrl.startsWith('https://'),
    path: '/',
  };
}

/** Sets the `herald_session` cookie carrying a session token. */
export function setSessionCookie(res: Response, config: Config, token: string): Response {
  return res.cookie(SESSION_COOKIE, token, { ...cookieOptions(config), maxAge: SESSION_DAYS * 86_400_000 });
}

/** Clears the `herald_session` cookie. */
export function clearSessionCookie(res: Response, config: Config): Response {
  return res.clearCookie(SESSION_COOKIE, cookieOptions(config));
}
