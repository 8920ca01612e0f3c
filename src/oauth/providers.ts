import type { GithubOAuth, GoogleOAuth, OAuthConfig } from '../config';
import type { OAuthProviderId } from '../entities/oauth-account';
import { ApiError } from '../http/errors';

/** Who the provider says signed in: its stable user id and a verified email address. */
export interface OAuthProfile {
  providerUserId: string;
  email: string;
}

/** One sign-in provider: where to send the browser, and how to turn the code it returns into a profile. */
export interface OAuthProvider {
  id: OAuthProviderId;
  name: string;
  /** The provider's consent page for one sign-in attempt. */
  authorizeUrl(redirectUri: string, state: string): string;
  /** Exchanges the authorization code server-side, then reads the user's id and verified primary email. */
  profile(code: string, redirectUri: string): Promise<OAuthProfile>;
}

const TIMEOUT_MS = 10_000;

type Json = Record<string, unknown>;

/** The provider could not be reached or answered something unusable. */
const providerFailed = (name: string, what: string) =>
  new ApiError(502, 'OAUTH_PROVIDER_ERROR', `${name} ${what}`, { suggestion: 'Try signing in again later.' });

const noVerifiedEmail = (name: string, which: string) =>
  new ApiError(400, 'OAUTH_EMAIL_UNVERIFIED', `Your ${name} account has no verified ${which}email address`, {
    suggestion: `Verify your email address with ${name}, then sign in again.`,
  });

function withQuery(base: string, params: Record<string, string>): string {
  return `${base}?${new URLSearchParams(params)}`;
}

/** One request to the provider, answered with its status and parsed JSON body. */
async function call(name: string, url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  const what = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
  const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) }).catch(() => {
    throw providerFailed(name, `could not be reached (${what})`);
  });
  const body: unknown = await response.json().catch(() => undefined);
  if (body === undefined) throw providerFailed(name, `answered ${what} with HTTP ${response.status} and no JSON`);
  return { status: response.status, body };
}

/** Trades an authorization code for an access token (a form POST, as RFC 6749 section 4.1.3 has it). */
async function exchangeCode(name: string, tokenUrl: string, form: Record<string, string>): Promise<string> {
  const { status, body } = await call(name, tokenUrl, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const { access_token: token, error } = (body ?? {}) as Json;
  if (status === 200 && typeof token === 'string' && token) return token;
  throw providerFailed(name, `refused the authorization code (${typeof error === 'string' ? error : `HTTP ${status}`})`);
}

/** A GET of a JSON document with the user's access token. */
async function getJson(name: string, url: string, token: string, headers: Record<string, string> = {}): Promise<unknown> {
  const { status, body } = await call(name, url, { headers: { accept: 'application/json', ...headers, authorization: `Bearer ${token}` } });
  if (status !== 200) throw providerFailed(name, `answered GET ${new URL(url).pathname} with HTTP ${status}`);
  return body;
}

function userId(name: string, value: unknown): string {
  if ((typeof value === 'string' && value) || typeof value === 'number') return String(value);
  throw providerFailed(name, 'did not say who signed in');
}

/** GitHub (or GitHub Enterprise): the primary email, when verified, from `/user/emails`. */
function github(config: GithubOAuth): OAuthProvider {
  const name = 'GitHub';
  const api = (path: string, token: string) =>
    getJson(name, `${config.apiUrl}${path}`, token, { accept: 'application/vnd.github+json', 'user-agent': 'Herald' });
  return {
    id: 'github',
    name,
    authorizeUrl: (redirectUri, state) =>
      withQuery(`${config.oauthUrl}/login/oauth/authorize`, {
        client_id: config.clientId,
        redirect_uri: redirectUri,
        scope: 'read:user user:email',
        state,
      }),
    async profile(code, redirectUri) {
      const token = await exchangeCode(name, `${config.oauthUrl}/login/oauth/access_token`, {
        client_id: config.clientId,
        client_secret: config.clientSecret,
        code,
        redirect_uri: redirectUri,
      });
      const user = (await api('/user', token)) as Json;
      const emails = await api('/user/emails', token);
      const primary = Array.isArray(emails)
        ? (emails as Json[]).find((entry) => entry?.primary === true && entry.verified === true)
        : undefined;
      if (typeof primary?.email !== 'string') throw noVerifiedEmail(name, 'primary ');
      return { providerUserId: userId(name, user?.id), email: primary.email };
    },
  };
}

/** Google: the OpenID Connect userinfo `email`, when `email_verified`. */
function google(config: GoogleOAuth): OAuthProvider {
  const name = 'Google';
  return {
    id: 'google',
    name,
    authorizeUrl: (redirectUri, state) =>
      withQuery(`${config.oauthUrl}/o/oauth2/v2/auth`, {
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid email profile',
        state,
      }),
    async profile(code, redirectUri) {
      const token = await exchangeCode(name, config.tokenUrl, {
        client_id: config.clientId,
        client_secret: config.clientSecret,
        code,
        redirect_uri: redirectUri,
        grant_type: 'authorization_code',
      });
      const info = (await getJson(name, `${config.apiUrl}/v1/userinfo`, token)) as Json;
      const verified = info?.email_verified === true || info?.email_verified === 'true';
      if (typeof info?.email !== 'string' || !verified) throw noVerifiedEmail(name, '');
      return { providerUserId: userId(name, info.sub), email: info.email };
    },
  };
}

/** The configured providers, GitHub first. */
export function oauthProviders(config: OAuthConfig): OAuthProvider[] {
  return [config.github && github(config.github), config.google && google(config.google)].filter(
    (provider): provider is OAuthProvider => provider !== undefined,
  );
}
