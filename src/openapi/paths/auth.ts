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

/** An endpoint that answers 200 `{ success: true }` for any well-formed email, so accounts cannot be probed. */
function emailRequest(operationId: string, summary: string, description: string): Operation {
  return {
    operationId,
    summary,
    description: `${description} Answers 200 whether or not an account exists, so accounts cannot be probed.`,
    security: noAuth,
    requestBody: jsonBody(object({ email })),
    responses: { '200': jsonResponse('Accepted.', success), ...commonErrors(400, 413, 422) },
  };
}

/** Sign-up, sign-in and the emailed-token flows of dashboard users. */
export const pathModule: PathModule = {
  tag: {
    name: 'Auth',
    description: 'Dashboard accounts. Signing in sets the `herald_session` cookie used by the Users and Projects endpoints.',
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
          'Creates an account, signs it in and emails a verification link. Pending project invites for the email are honoured.',
        security: noAuth,
        requestBody: jsonBody(schemaRef('SignupBody')),
        responses: {
          '201': jsonResponse('The new user; the session cookie is set.', schemaRef('User'), { headers: setsCookie }),
          '403': errorResponse(403, 'SIGNUPS_DISABLED', 'This deployment does not accept sign-ups'),
          '409': errorResponse(409, 'EMAIL_TAKEN', 'An account with this email already exists'),
          ...commonErrors(400, 413, 422),
        },
      },
    },
    '/auth/login': {
      post: {
        operationId: 'login',
        summary: 'Sign in',
        security: noAuth,
        requestBody: jsonBody(schemaRef('LoginBody')),
        responses: {
          '200': jsonResponse('The user; the session cookie is set.', schemaRef('User'), { headers: setsCookie }),
          '401': errorResponse(401, 'INVALID_CREDENTIALS', 'Unknown email or wrong password (one answer for both)', {
            message: 'Invalid email or password',
          }),
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
        description: 'The configured sign-in providers; an empty list when none is.',
        security: noAuth,
        responses: {
          '200': jsonResponse(
            'Configured providers.',
            object({
              providers: arrayOf(
                object({
                  name: { type: 'string', enum: ['github', 'google'] },
                  authorizeUrl: { type: 'string', format: 'uri' },
                }),
              ),
            }),
          ),
          ...commonErrors(),
        },
      },
    },
    '/auth/verify-email': {
      post: {
        operationId: 'verifyEmail',
        summary: 'Verify an email address',
        description: 'Consumes the single-use token from the verification email (valid 24 hours).',
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
        description: 'Consumes the single-use token from the reset email and sets the new password.',
        security: noAuth,
        requestBody: jsonBody(object({ token: { type: 'string' }, password })),
        responses: {
          '200': jsonResponse('The password is changed.', success),
          '400': invalidToken,
          ...commonErrors(413, 422),
        },
      },
    },
  },
};
