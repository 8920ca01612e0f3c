import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeServer, listenLoopback, readBody } from './http-double';

/**
 * A local stand-in for the GitHub and Google OAuth endpoints Herald uses, on one port:
 * GitHub  GET /login/oauth/authorize, POST /login/oauth/access_token, GET /user, GET /user/emails;
 * Google  GET /o/oauth2/v2/auth, POST /token, GET /v1/userinfo.
 * The authorize pages sign in as `account` at once (or, without one, answer
 * `error=access_denied` as a user who cancels) and redirect to `redirect_uri` with a code.
 * Codes are single-use and bound to the client and `redirect_uri`, like the real ones; every
 * request is recorded.
 */

export type ProviderName = 'github' | 'google';

/** The person signing in at the provider. */
export interface ProviderAccount {
  id: string;
  email: string;
  emailVerified: boolean;
}

/** One request as the provider received it. */
export interface OAuthRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  form: Record<string, string>;
  headers: IncomingMessage['headers'];
}

interface Grant {
  provider: ProviderName;
  account: ProviderAccount;
  clientId: string;
  redirectUri: string;
}

const CLIENTS: Record<ProviderName, { clientId: string; clientSecret: string }> = {
  github: { clientId: 'gh-client-id', clientSecret: 'gh-client-secret' },
  google: { clientId: 'google-client-id.apps.googleusercontent.com', clientSecret: 'google-client-secret' },
};

const AUTHORIZE_PATHS: Record<string, ProviderName> = { '/login/oauth/authorize': 'github', '/o/oauth2/v2/auth': 'google' };

const random = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export class OAuthServer {
  readonly requests: OAuthRequest[] = [];
  /** Who signs in at the next authorize page; undefined makes the user cancel. */
  account: ProviderAccount | undefined;
  private readonly codes = new Map<string, Grant>();
  private readonly tokens = new Map<string, Grant>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts the server on a free loopback port. */
  static async start(): Promise<OAuthServer> {
    let instance: OAuthServer | undefined;
    const { server, url } = await listenLoopback((req, res) => instance!.handle(req, res));
    instance = new OAuthServer(server, url);
    return instance;
  }

  /** Herald's configuration for the given providers, pointed at this server. */
  env(providers: ProviderName[] = ['github', 'google']): Record<string, string> {
    const env: Record<string, string> = {};
    if (providers.includes('github')) {
      Object.assign(env, {
        GITHUB_CLIENT_ID: CLIENTS.github.clientId,
        GITHUB_CLIENT_SECRET: CLIENTS.github.clientSecret,
        GITHUB_OAUTH_URL: this.url,
        GITHUB_API_URL: this.url,
      });
    }
    if (providers.includes('google')) {
      Object.assign(env, {
        GOOGLE_CLIENT_ID: CLIENTS.google.clientId,
        GOOGLE_CLIENT_SECRET: CLIENTS.google.clientSecret,
        GOOGLE_OAUTH_URL: this.url,
        GOOGLE_TOKEN_URL: `${this.url}/token`,
        GOOGLE_API_URL: this.url,
      });
    }
    return env;
  }

  /** The client id Herald is expected to send for a provider. */
  clientId(provider: ProviderName): string {
    return CLIENTS[provider].clientId;
  }

  /** The recorded requests to one path. */
  requestsTo(path: string): OAuthRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', this.url);
    const request: OAuthRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      form: Object.fromEntries(new URLSearchParams(body)),
      headers: req.headers,
    };
    this.requests.push(request);
    const provider = AUTHORIZE_PATHS[request.path];
    if (request.method === 'GET' && provider) return this.authorize(provider, request, res);
    if (request.method === 'POST' && request.path === '/login/oauth/access_token') return this.githubToken(request, res);
    if (request.method === 'POST' && request.path === '/token') return this.googleToken(request, res);
    const grant = this.tokens.get((request.headers.authorization ?? '').replace(/^(Bearer|token) /, ''));
    if (request.method === 'GET' && request.path.startsWith('/user')) return this.githubApi(grant, request, res);
    if (request.method === 'GET' && request.path === '/v1/userinfo') return this.googleUserinfo(grant, res);
    json(res, 404, { message: 'Not Found' });
  }

  private authorize(provider: ProviderName, request: OAuthRequest, res: ServerResponse): void {
    const { client_id: clientId, redirect_uri: redirectUri, state } = request.query;
    if (clientId !== CLIENTS[provider].clientId || !redirectUri) return json(res, 400, { error: 'invalid_request' });
    const back = new URL(redirectUri);
    if (state !== undefined) back.searchParams.set('state', state);
    if (this.account) {
      const code = random('code');
      this.codes.set(code, { provider, account: this.account, clientId, redirectUri });
      back.searchParams.set('code', code);
    } else {
      back.searchParams.set('error', 'access_denied');
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  /** Redeems a code once, for the client and redirect_uri it was issued to. */
  private redeem(provider: ProviderName, form: Record<string, string>): string | undefined {
    const grant = this.codes.get(form.code);
    const client = CLIENTS[provider];
    if (!grant || grant.provider !== provider || form.client_id !== client.clientId || form.client_secret !== client.clientSecret) return undefined;
    if (form.redirect_uri !== grant.redirectUri) return undefined;
    this.codes.delete(form.code);
    const token = random(provider === 'github' ? 'gho' : 'ya29');
    this.tokens.set(token, grant);
    return token;
  }

  /** Like GitHub: form-encoded unless asked for JSON, and errors with status 200. */
  private githubToken(request: OAuthRequest, res: ServerResponse): void {
    const token = this.redeem('github', request.form);
    const body: Record<string, string> = token
      ? { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' }
      : { error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' };
    if (request.headers.accept?.includes('application/json')) return json(res, 200, body);
    res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(new URLSearchParams(body).toString());
  }

  private googleToken(request: OAuthRequest, res: ServerResponse): void {
    const token = request.form.grant_type === 'authorization_code' ? this.redeem('google', request.form) : undefined;
    if (!token) return json(res, 400, { error: 'invalid_grant', error_description: 'Bad Request' });
    json(res, 200, { access_token: token, expires_in: 3599, scope: 'openid email profile', token_type: 'Bearer', id_token: 'unused' });
  }

  private githubApi(grant: Grant | undefined, request: OAuthRequest, res: ServerResponse): void {
    if (!request.headers['user-agent']) return json(res, 403, { message: 'Request forbidden by administrative rules.' });
    if (grant?.provider !== 'github') return json(res, 401, { message: 'Bad credentials' });
    const { account } = grant;
    if (request.path === '/user') return json(res, 200, { id: Number(account.id), login: `user${account.id}`, email: null });
    if (request.path === '/user/emails') {
      return json(res, 200, [
        { email: `${account.id}+user@users.noreply.github.com`, primary: false, verified: true, visibility: null },
        { email: account.email, primary: true, verified: account.emailVerified, visibility: 'private' },
      ]);
    }
    json(res, 404, { message: 'Not Found' });
  }

  private googleUserinfo(grant: Grant | undefined, res: ServerResponse): void {
    if (grant?.provider !== 'google') return json(res, 401, { error: 'invalid_request', error_description: 'Invalid Credentials' });
    const { account } = grant;
    json(res, 200, { sub: account.id, email: account.email, email_verified: account.emailVerified, name: 'Test User' });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
