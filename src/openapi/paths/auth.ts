import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  email,
  errorExample,
  errorResponse,
  headerRef,
  jsonBody,
  jsonResponse,
  noAuth,
  object,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import type { Operation, PathModule, Response } from '../types';

const password = described({ type: 'string', minLength: 8, maxLength: 256 }, '8 to 256 characters.');
const success = schemaRef('Success');
const setsCookie = { 'Set-Cookie': headerRef('Set-Cookie') };

const invalidToken: Response = jsonResponse(
  'The token is unknown, already used or expired (`INVALID_TOKEN`), or the body is not valid JSON (`BAD_REQUEST`).',
  schemaRef('ErrorResponse'),
  {
    examples: {
      invalidToken: { summary: 'Unusable token', value: errorExample(400, 'INVALID_TOKEN', 'This link is invalid or has expired') },
      malformed: { summary: 'Malformed JSON', value: errorExample(400, 'BAD_REQUEST', 'Malformed JSON in request body') },
    },
  },
);

/** The 429 of the throttled endpoints: the client address's budget, or the account email's. */
function throttled(perEmail: string): Response {
  return jsonResponse(
    'Throttled (`RATE_LIMITED`): more than `AUTH_RATE_LIMIT_PER_MINUTE` (default 300) requests this minute from the client ' +
      `address (an IPv6 address counts by its /64)${perEmail}. Counted in Postgres, across every API process; ` +
      '`Retry-After` says when to try again.',
    schemaRef('ErrorResponse'),
    {
      headers: { 'Retry-After': headerRef('Retry-After'), ...rateLimitHeaders },
      example: errorExample(429, 'RATE_LIMITED', 'Too many emails were sent to ada@example.com in the last hour; try again in 38 minutes'),
    },
  );
}
const accountEmailThrottle = ', or more than 5 account emails (verification, password reset, invitation) asked for this address in the last hour, whether or not it has an account';

const oauthProvider = pathParam('provider', 'The OAuth provider, when configured.', { type: 'string', enum: ['github', 'google'] });
const unknownProvider = errorResponse(404, 'NOT_FOUND', 'The provider is unknown or not configured on this deployment', {
  message: 'OAuth provider not found',
});

/** A 302 to `where`, with the cookie it sets. */
function redirectTo(description: string, location: string, cookie: string): Response {
  return {
    description,
    headers: {
      Location: { description: location, schema: { type: 'string', format: 'uri' } },
      'Set-Cookie': { description: cookie, schema: { type: 'string' } },
      'X-Request-Id': headerRef('X-Request-Id'),
    },
  };
}

const oauthCallbackFailed: Response = jsonResponse(
  'The sign-in attempt failed; nothing was stored and the state cookie is cleared.',
  schemaRef('ErrorResponse'),
  {
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
      noCode: {
        summary: 'No `code` in the callback (`BAD_REQUEST`)',
        value: errorExample(400, 'BAD_REQUEST', 'GitHub sent no authorization code'),
      },
    },
  },
);

/** An endpoint that answers 200 `{ success: true }` for any well-formed email, so accounts cannot be probed. */
function emailRequest(operationId: string, summary: string, description: string): Operation {
  return {
    operationId,
    summary,
    description: `${description} Answers 200 whether or not an account exists, so accounts cannot be probed.`,
    security: noAuth,
    requestBody: jsonBody(object({ email })),
    responses: { '200': jsonResponse('Accepted.', success), '429': throttled(accountEmailThrottle), ...commonErrors(400, 413, 422) },
  };
}

/** Sign-up, sign-in and the emailed-token flows of dashboard users. */
export const pathModule: PathModule = {
  tag: {
    name: 'Auth',
    description:
      'Dashboard accounts. Signing in (with a password, or with GitHub or Google) sets the `herald_session` cookie used by the Users and Projects endpoints.',
  },
  schemas: {
    User: object({ id: uuid, email, emailVerified: { type: 'boolean' }, createdAt: dateTime }),
    SignupBody: object({ email, password }),
    LoginBody: object({ email: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } }),
  },
  paths: {
    '/auth/signup': {
      post: {
        operationId: 'signup',
        summary: 'Sign up',
        description:
          'Creates an account, signs it in and emails a verification link. Pending project invites for the email take effect ' +
          'only once the email is verified; until then the account sees nothing of those projects.',
        security: noAuth,
        requestBody: jsonBody(schemaRef('SignupBody')),
        responses: {
          '201': jsonResponse('The new user; the session cookie is set.', schemaRef('User'), { headers: setsCookie }),
          '403': errorResponse(403, 'SIGNUPS_DISABLED', 'This deployment does not accept sign-ups'),
          '409': errorResponse(409, 'EMAIL_TAKEN', 'An account with this email already exists'),
          '429': throttled(accountEmailThrottle),
          ...commonErrors(400, 413, 422),
        },
      },
    },
    '/auth/login': {
      post: {
        operationId: 'login',
        summary: 'Sign in',
        description: 'A user created through GitHub or Google has no password until they reset one, and gets the same 401 as a wrong password.',
        security: noAuth,
        requestBody: jsonBody(schemaRef('LoginBody')),
        responses: {
          '200': jsonResponse('The user; the session cookie is set.', schemaRef('User'), { headers: setsCookie }),
          '401': errorResponse(401, 'INVALID_CREDENTIALS', 'Unknown email or wrong password (one answer for both)', {
            message: 'Invalid email or password',
          }),
          '429': throttled(
            ', or 10 failed sign-ins for this email in the last 15 minutes (counted whether or not it has an account, ' +
              'refused with the right password too, and before any password is checked)',
          ),
          ...commonErrors(400, 413, 422),
        },
      },
    },
    '/auth/logout': {
      get: {
        operationId: 'logout',
        summary: 'Sign out',
        description: 'Revokes the session on the server and clears the cookie.',
        security: [{ session: [] }, {}],
        responses: { '200': jsonResponse('Signed out.', success, { headers: setsCookie }), ...commonErrors() },
      },
    },
    '/auth/oauth-config': {
      get: {
        operationId: 'getOAuthConfig',
        summary: 'List OAuth providers',
        description:
          'The configured sign-in providers (a provider is configured when its client id and secret are set); an empty list when none is. ' +
          'A sign-in button links the browser to `authorizeUrl`.',
        security: noAuth,
        responses: {
          '200': jsonResponse(
            'Configured providers.',
            object({
              providers: arrayOf(
                object({
                  id: { type: 'string', enum: ['github', 'google'] },
                  name: described({ type: 'string' }, 'Display name: `GitHub` or `Google`.'),
                  authorizeUrl: described(
                    { type: 'string', format: 'uri' },
                    "Herald's own start URL, `{PUBLIC_URL}/auth/oauth/{id}`, which redirects to the provider.",
                  ),
                }),
              ),
            }),
            {
              example: {
                providers: [{ id: 'github', name: 'GitHub', authorizeUrl: 'https://herald.example.com/auth/oauth/github' }],
              },
            },
          ),
          ...commonErrors(),
        },
      },
    },
    '/auth/oauth/{provider}': {
      get: {
        operationId: 'startOAuthSignIn',
        summary: 'Start signing in with a provider',
        description:
          'For a browser: redirects to the provider\'s consent page with the client id, the callback ' +
          '`{PUBLIC_URL}/auth/oauth/{provider}/callback` as `redirect_uri`, the scope (GitHub `read:user user:email`, ' +
          'Google `openid email profile`) and a random `state`. The same `state` is remembered for 10 minutes in the ' +
          'signed, HttpOnly, SameSite=Lax cookie `herald_oauth_state`, which the callback checks.',
        security: noAuth,
        parameters: [
          oauthProvider,
          queryParam(
            'redirect',
            'Where to land after signing in: a path on this deployment such as `/projects`. Anything else (an absolute or ' +
              'protocol-relative URL) is ignored in favour of `/`.',
            { type: 'string', default: '/' },
          ),
        ],
        responses: {
          '302': redirectTo(
            'To the provider\'s authorize page.',
            'The provider\'s authorize URL with `client_id`, `redirect_uri`, `scope` and `state`.',
            'Sets `herald_oauth_state` (path `/auth/oauth`, 10 minutes).',
          ),
          '404': unknownProvider,
          ...commonErrors(),
        },
      },
    },
    '/auth/oauth/{provider}/callback': {
      get: {
        operationId: 'finishOAuthSignIn',
        summary: 'Finish signing in with a provider',
        description:
          'The provider sends the browser here. Herald checks `state` against the `herald_oauth_state` cookie, exchanges ' +
          '`code` for a token server-side and reads the verified primary email (GitHub `/user/emails`, Google userinfo with ' +
          '`email_verified`). It then signs in the user linked to this provider account; else links the account to the ' +
          'user with that email; else creates a user without a password (refused with 403 when sign-ups are disabled). ' +
          'Linking to a user whose email was not verified yet hands the account to the address\'s proven owner: its ' +
          'password is cleared and its sessions signed out, then the email is marked verified. Either way pending project ' +
          'invites for the email become memberships. A user without a password may set one ' +
          'with the password reset flow. Finally it sets the session cookie and redirects to `PUBLIC_URL` plus the path ' +
          'given at the start.',
        security: noAuth,
        parameters: [
          oauthProvider,
          queryParam('code', 'The authorization code issued by the provider.', { type: 'string' }),
          queryParam('state', 'Must equal the `state` remembered in the `herald_oauth_state` cookie.', { type: 'string' }),
          queryParam('error', 'Set by the provider instead of `code` when it did not sign the user in, e.g. `access_denied`.', {
            type: 'string',
          }),
        ],
        responses: {
          '302': redirectTo(
            'Signed in.',
            '`PUBLIC_URL` plus the path given as `redirect` at the start (default `/`).',
            'Sets the `herald_session` cookie (HttpOnly, SameSite=Lax, 30 days) and clears `herald_oauth_state`.',
          ),
          '400': oauthCallbackFailed,
          '403': errorResponse(403, 'SIGNUPS_DISABLED', 'No account has this email and this deployment does not accept sign-ups', {
            message: 'Sign-ups are disabled on this Herald instance',
          }),
          '404': unknownProvider,
          '409': errorResponse(409, 'EMAIL_TAKEN', 'An account with this email was created at the same moment; sign in again'),
          '502': errorResponse(502, 'OAUTH_PROVIDER_ERROR', 'The provider could not be reached, refused the code or answered something unusable', {
            message: 'GitHub refused the authorization code (bad_verification_code)',
          }),
          ...commonErrors(),
        },
      },
    },
    '/auth/verify-email': {
      post: {
        operationId: 'verifyEmail',
        summary: 'Verify an email address',
        description:
          'Consumes the single-use token from the verification email (valid 24 hours). The pending project invites for ' +
          'the address become memberships.',
        security: noAuth,
        requestBody: jsonBody(object({ token: { type: 'string' } })),
        responses: {
          '200': jsonResponse('The email is verified.', success),
          '400': invalidToken,
          ...commonErrors(413, 422),
        },
      },
    },
    '/auth/request-verification': {
      post: emailRequest('requestVerification', 'Resend the verification email', 'Sends a new verification link.'),
    },
    '/auth/request-password-reset': {
      post: emailRequest(
        'requestPasswordReset',
        'Request a password reset',
        'Sends a password-reset link, valid for 1 hour.',
      ),
    },
    '/auth/reset-password': {
      post: {
        operationId: 'resetPassword',
        summary: 'Reset the password',
        description:
          'Consumes the single-use token from the reset email and sets the new password; this is also how a user who signed up ' +
          'with GitHub or Google sets a first password. Every session of the user is signed out. The token reached the ' +
          'address, so the email counts as verified and pending project invites for it become memberships.',
        security: noAuth,
        requestBody: jsonBody(object({ token: { type: 'string' }, password })),
        responses: {
          '200': jsonResponse('The password is changed.', success),
          '400': invalidToken,
          '429': throttled(''),
          ...commonErrors(413, 422),
        },
      },
    },
  },
};
