import type { RequestHandler } from 'express';
import type { DataSource } from 'typeorm';
import { userForSession } from '../../accounts/accounts-queries';
import { SESSION_COOKIE } from '../../accounts/sessions';
import { ApiError } from '../errors';
import { requestCookie } from '../cookies';
import '../request-context';

/** Requires a valid session cookie and attaches the signed-in user; 401 otherwise. */
export function sessionAuth(dataSource: DataSource): RequestHandler {
  return async (req, _res, next) => {
    const token = requestCookie(req, SESSION_COOKIE);
    const user = token ? await userForSession(dataSource, token) : undefined;
    if (!user) {
      throw new ApiError(401, 'UNAUTHORIZED', 'Sign in first: this endpoint needs a session', {
        suggestion: 'POST /auth/login sets the session cookie.',
      });
    }
    req.user = user;
    next();
  };
}
