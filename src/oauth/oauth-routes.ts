import type { Config } from '../config';
import { endpoint, type Endpoint } from '../http/endpoint';
import { requestCookie } from '../http/cookies';
import { cookieOptions, setSessionCookie } from '../accounts/cookies';
import { OAuthCallbackQuery, OAuthStartQuery } from './oauth-dtos';
import * as docs from './oauth-docs';
import { STATE_COOKIE, STATE_MINUTES } from './oauth-state';

/** The state cookie lives only under the OAuth paths. */
const stateCookie = (config: Config) => ({ ...cookieOptions(config), path: '/auth/oauth' });

/** Sign-in with GitHub and Google (`/auth/oauth*`): the provider list, the redirect to a provider and its callback; part of the Auth table. */
export const oauthEndpoints: Endpoint<any, any>[] = [
  endpoint({
    method: 'get',
    path: '/auth/oauth-config',
    credential: 'none',
    doc: docs.getOAuthConfig,
    handle: ({ services }) => services.oauth.list(),
  }),
  endpoint<undefined, OAuthStartQuery>({
    method: 'get',
    path: '/auth/oauth/{provider}',
    credential: 'none',
    query: OAuthStartQuery,
    doc: docs.startOAuthSignIn,
    handle: ({ services, config, res, params, query }) => {
      const { location, cookie } = services.oauth.begin(services.oauth.provider(params.provider), query.redirect);
      res.cookie(STATE_COOKIE, cookie, { ...stateCookie(config), maxAge: STATE_MINUTES * 60_000 }).redirect(302, location);
    },
  }),
  endpoint<undefined, OAuthCallbackQuery>({
    method: 'get',
    path: '/auth/oauth/{provider}/callback',
    credential: 'none',
    query: OAuthCallbackQuery,
    doc: docs.finishOAuthSignIn,
    handle: async ({ services, config, req, res, params, query }) => {
      const provider = services.oauth.provider(params.provider);
      res.clearCookie(STATE_COOKIE, stateCookie(config));
      const { sessionToken, location } = await services.oauth.finish(provider, requestCookie(req, STATE_COOKIE), query);
      setSessionCookie(res, config, sessionToken).redirect(302, location);
    },
  }),
];
