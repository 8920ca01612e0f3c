import { errorExample, errorResponse, headerRef, jsonResponse, rateLimitHeaders, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { User } from './accounts-dtos';

export const tag: Tag = {
  name: 'Auth',
  description:
    'Dashboard accounts. Signing in (with a password, or with GitHub or Google) sets the `herald_session` cookie used by the Users and Projects endpoints.',
};

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
const accountEmailThrottle = throttled(
  ', or more than 5 account emails (verification, password reset, invitation) asked for this address in the last hour, whether or not it has an account',
);

/** An endpoint that answers 200 `{ success: true }` for any well-formed email, so accounts cannot be probed. */
const emailRequest = (operationId: string, summary: string, description: string): EndpointDoc => ({
  operationId,
  summary,
  description: `${description} Answers 200 whether or not an account exists, so accounts cannot be probed.`,
  response: { description: 'Accepted.', shape: success },
  errors: { '429': accountEmailThrottle },
});

export const signup: EndpointDoc = {
  operationId: 'signup',
  summary: 'Sign up',
  description:
    'Creates an account, signs it in and emails a verification link. Pending project invites for the email take effect ' +
    'only once the email is verified; until then the account sees nothing of those projects.',
  response: { status: 201, description: 'The new user; the session cookie is set.', shape: User, headers: setsCookie },
  errors: {
    '403': errorResponse(403, 'SIGNUPS_DISABLED', 'This deployment does not accept sign-ups'),
    '409': errorResponse(409, 'EMAIL_TAKEN', 'An account with this email already exists'),
    '429': accountEmailThrottle,
  },
};

export const login: EndpointDoc = {
  operationId: 'login',
  summary: 'Sign in',
  description: 'A user created through GitHub or Google has no password until they reset one, and gets the same 401 as a wrong password.',
  response: { description: 'The user; the session cookie is set.', shape: User, headers: setsCookie },
  errors: {
    '401': errorResponse(401, 'INVALID_CREDENTIALS', 'Unknown email or wrong password (one answer for both)', {
      message: 'Invalid email or password',
    }),
    '429': throttled(
      ', or 10 failed sign-ins for this email in the last 15 minutes (counted whether or not it has an account, ' +
        'refused with the right password too, and before any password is checked)',
    ),
  },
};

export const logout: EndpointDoc = {
  operationId: 'logout',
  summary: 'Sign out',
  description: 'Revokes the session on the server and clears the cookie.',
  response: { description: 'Signed out.', shape: success, headers: setsCookie },
};

export const verifyEmail: EndpointDoc = {
  operationId: 'verifyEmail',
  summary: 'Verify an email address',
  description:
    'Consumes the single-use token from the verification email (valid 24 hours). The pending project invites for ' +
    'the address become memberships.',
  response: { description: 'The email is verified.', shape: success },
  errors: { '400': invalidToken },
};

export const requestVerification = emailRequest('requestVerification', 'Resend the verification email', 'Sends a new verification link.');

export const requestPasswordReset = emailRequest('requestPasswordReset', 'Request a password reset', 'Sends a password-reset link, valid for 1 hour.');

export const resetPassword: EndpointDoc = {
  operationId: 'resetPassword',
  summary: 'Reset the password',
  description:
    'Consumes the single-use token from the reset email and sets the new password; this is also how a user who signed up ' +
    'with GitHub or Google sets a first password. Every session of the user is signed out. The token reached the ' +
    'address, so the email counts as verified and pending project invites for it become memberships.',
  response: { description: 'The password is changed.', shape: success },
  errors: { '400': invalidToken, '429': throttled('') },
};
