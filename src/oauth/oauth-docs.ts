import { errorExample, errorResponse, headerRef, jsonResponse, pathParam, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Response } from '../openapi/types';
import { OAuthProviderList } from './oauth-dtos';

const oauthProvider = pathParam('provider', 'The OAuth provider, when configured.', { type: 'string', enum: ['github', 'google'] });
const unknownProvider = errorResponse(404, 'NOT_FOUND', 'The provider is unknown or not configured on this deployment', {
  message: 'OAuth provider not found',
});

/** A 302 to `location`, with the cookie it sets. */
const redirectHeaders = (location: string, cookie: string): Response['headers'] => ({
  Location: { description: location, schema: { type: 'string', format: 'uri' } },
  'Set-Cookie': { description: cookie, schema: { type: 'string' } },
  'X-Request-Id': headerRef('X-Request-Id'),
});

const callbackFailed: Response = jsonResponse('The sign-in attempt failed; nothing was stored and the state cookie is cleared.', schemaRef('ErrorResponse'), {
  examples: {
    state: {
      summary: 'Missing, forged, expired or mismatched `state` (`INVALID_OAUTH_STATE`)',
      value: errorExample(400, 'INVALID_OAUTH_STATE', 'The sign-in attempt is unknown, expired or was started in another browser'),
    },
    denied: {
      summary: 'The provider reported an error, e.g. the user cancelled (`OAUTH_DENIED`)',
      value: errorExample(400, 'OAUTH_DENIED', 'GitHub did not sign you in (access_denied)'),
    },
    unverified: {
      summary: 'The provider account has no verified (primary) email (`OAUTH_EMAIL_UNVERIFIED`)',
      value: errorExample(400, 'OAUTH_EMAIL_UNVERIFIED', 'Your GitHub account has no verified primary email address'),
    },
    noCode: { summary: 'No `code` in the callback (`BAD_REQUEST`)', value: errorExample(400, 'BAD_REQUEST', 'GitHub sent no authorization code') },
  },
});

export const getOAuthConfig: EndpointDoc = {
  operationId: 'getOAuthConfig',
  summary: 'List OAuth providers',
  description:
    'The configured sign-in providers (a provider is configured when its client id and secret are set); an empty list when none is. ' +
    'A sign-in button links the browser to `authorizeUrl`.',
  response: {
    description: 'Configured providers.',
    shape: OAuthProviderList,
    example: { providers: [{ id: 'github', name: 'GitHub', authorizeUrl: 'https://herald.example.com/auth/oauth/github' }] },
  },
};

export const startOAuthSignIn: EndpointDoc = {
  operationId: 'startOAuthSignIn',
  summary: 'Start signing in with a provider',
  description:
    "For a browser: redirects to the provider's consent page with the client id, the callback " +
    '`{PUBLIC_URL}/auth/oauth/{provider}/callback` as `redirect_uri`, the scope (GitHub `read:user user:email`, ' +
    'Google `openid email profile`) and a random `state`. The same `state` is remembered for 10 minutes in the ' +
    'signed, HttpOnly, SameSite=Lax cookie `herald_oauth_state`, which the callback checks.',
  parameters: [oauthProvider],
  response: {
    status: 302,
    description: "To the provider's authorize page.",
    headers: redirectHeaders(
      "The provider's authorize URL with `client_id`, `redirect_uri`, `scope` and `state`.",
      'Sets `herald_oauth_state` (path `/auth/oauth`, 10 minutes).',
    ),
  },
  errors: { '404': unknownProvider },
};

export const finishOAuthSignIn: EndpointDoc = {
  operationId: 'finishOAuthSignIn',
  summary: 'Finish signing in with a provider',
  description:
    'The provider sends the browser here. Herald checks `state` against the `herald_oauth_state` cookie, exchanges ' +
    '`code` for a token server-side and reads the verified primary email (GitHub `/user/emails`, Google userinfo with ' +
    '`email_verified`). It then signs in the user linked to this provider account; else links the account to the ' +
    'user with that email; else creates a user without a password (refused with 403 when sign-ups are disabled). ' +
    "Linking to a user whose email was not verified yet hands the account to the address's proven owner: its " +
    'password is cleared and its sessions signed out, then the email is marked verified. Either way pending project ' +
    'invites for the email become memberships. A user without a password may set one with the password reset flow. ' +
    'Finally it sets the session cookie and redirects to `PUBLIC_URL` plus the path given at the start.',
  parameters: [oauthProvider],
  response: {
    status: 302,
    description: 'Signed in.',
    headers: redirectHeaders(
      '`PUBLIC_URL` plus the path given as `redirect` at the start (default `/`).',
      'Sets the `herald_session` cookie (HttpOnly, SameSite=Lax, 30 days) and clears `herald_oauth_state`.',
    ),
  },
  errors: {
    '400': callbackFailed,
    '403': errorResponse(403, 'SIGNUPS_DISABLED', 'No account has this email and this deployment does not accept sign-ups', {
      message: 'Sign-ups are disabled on this Herald instance',
    }),
    '404': unknownProvider,
    '409': errorResponse(409, 'EMAIL_TAKEN', 'An account with this email was created at the same moment; sign in again'),
    '502': errorResponse(502, 'OAUTH_PROVIDER_ERROR', 'The provider could not be reached, refused the code or answered something unusable', {
      message: 'GitHub refused the authorization code (bad_verification_code)',
    }),
  },
};
