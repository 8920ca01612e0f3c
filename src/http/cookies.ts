import cookieParser from 'cookie-parser';
import type { Request, Response } from 'express';

const parseCookies = cookieParser();

/**
 * The request's cookie `name`, or undefined. The Cookie header is parsed on first use rather than
 * for every request: only session and sign-in endpoints read cookies, most requests carry a key.
 */
export function requestCookie(req: Request, name: string): string | undefined {
  if (req.cookies === undefined) parseCookies(req, {} as Response, () => undefined);
  const value: unknown = req.cookies?.[name];
  return typeof value === 'string' ? value : undefined;
}
