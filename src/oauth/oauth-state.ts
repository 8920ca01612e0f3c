import { createHmac } from 'node:crypto';
import type { OAuthProviderId } from '../entities/oauth-account';
import { ApiError } from '../http/errors';
import { digestsEqual, randomToken, sha256 } from '../accounts/tokens';

/**
 * The sign-in attempt in flight between `GET /auth/oauth/:provider` and its callback. The
 * browser keeps it in an HttpOnly cookie signed under SESSION_SECRET; the provider carries
 * only the random `state`, which must come back equal to the cookie's (CSRF protection).
 */
export const STATE_COOKIE = 'herald_oauth_state';
export const STATE_MINUTES = 10;

interface PendingSignIn {
  provider: OAuthProviderId;
  state: string;
  /** The same-site path to land on once signed in. */
  redirect: string;
  expiresAt: number;
}

const invalidState = () =>
  new ApiError(400, 'INVALID_OAUTH_STATE', 'The sign-in attempt is unknown, expired or was started in another browser', {
    suggestion: 'Start signing in again from the sign-in page.',
  });

const sign = (secret: string, payload: string) => createHmac('sha256', secret).update(`oauth-state:${payload}`).digest('hex');

/** A same-site path to return to after sign-in: `redirect` when it is a relative path, else `/` (no open redirects). */
export function safeRedirect(redirect: unknown): string {
  const relative = typeof redirect === 'string' && redirect.length <= 2000 && /^\/(?![/\\])/.test(redirect);
  return relative && !/[\\\u0000-\u0020\u007f]/.test(redirect) ? redirect : '/';
}

/** Starts an attempt: the `state` to hand the provider and the signed cookie value remembering it. */
export function beginSignIn(secret: string, provider: OAuthProviderId, redirect: string): { state: string; cookie: string } {
  const pending: PendingSignIn = { provider, state: randomToken(), redirect, expiresAt: Date.now() + STATE_MINUTES * 60_000 };
  const payload = Buffer.from(JSON.stringify(pending)).toString('base64url');
  return { state: pending.state, cookie: `${payload}.${sign(secret, payload)}` };
}

/** Ends an attempt: the redirect path it remembers, when the cookie is genuine, current, for `provider` and matches `state`; else 400. */
export function finishSignIn(secret: string, cookie: unknown, provider: OAuthProviderId, state: unknown): string {
  if (typeof cookie !== 'string' || typeof state !== 'string') throw invalidState();
  const [payload, signature] = cookie.split('.');
  if (!payload || !signature || !digestsEqual(signature, sign(secret, payload))) throw invalidState();
  const pending = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as PendingSignIn;
  const current = pending.provider === provider && pending.expiresAt > Date.now();
  if (!current || !digestsEqual(sha256(state), sha256(pending.state))) throw invalidState();
  return safeRedirect(pending.redirect);
}
