import { endpoint, type EndpointContext, type RouteTable } from '../http/endpoint';
import { requestCookie } from '../http/cookies';
import { oauthEndpoints } from '../oauth/oauth-routes';
import { AccountEmailBody, LoginBody, ResetPasswordBody, SignupBody, VerifyEmailBody } from './accounts-dtos';
import * as docs from './auth-docs';
import { userView } from './auth-service';
import { clearSessionCookie, setSessionCookie } from './cookies';
import { SESSION_COOKIE } from './sessions';

/** Counts the request against its client address's budget before its body is validated (sign-in and account-email endpoints). */
const perAddress = (context: EndpointContext<unknown, unknown>) => context.services.auth.throttleAddress(context.req, context.res);

const success = { success: true };

/** Sign-up, sign-in, sign-out, email verification and password reset (`/auth/*`), and OAuth sign-in; no credential. */
export const authRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    endpoint<SignupBody>({
      method: 'post',
      path: '/auth/signup',
      credential: 'none',
      body: SignupBody,
      doc: docs.signup,
      before: perAddress,
      handle: async ({ services, config, res, body }) => {
        const { user, sessionToken } = await services.auth.signup(body.email, body.password);
        setSessionCookie(res, config, sessionToken);
        return userView(user);
      },
    }),
    endpoint<LoginBody>({
      method: 'post',
      path: '/auth/login',
      credential: 'none',
      body: LoginBody,
      doc: docs.login,
      before: perAddress,
      handle: async ({ services, config, res, body }) => {
        const { user, sessionToken } = await services.auth.login(body.email, body.password);
        setSessionCookie(res, config, sessionToken);
        return userView(user);
      },
    }),
    endpoint({
      method: 'get',
      path: '/auth/logout',
      credential: 'none',
      doc: docs.logout,
      handle: async ({ services, config, req, res }) => {
        await services.auth.logout(requestCookie(req, SESSION_COOKIE));
        clearSessionCookie(res, config);
        return success;
      },
    }),
    ...oauthEndpoints,
    endpoint<VerifyEmailBody>({
      method: 'post',
      path: '/auth/verify-email',
      credential: 'none',
      body: VerifyEmailBody,
      doc: docs.verifyEmail,
      handle: async ({ services, body }) => {
        await services.auth.verifyEmail(body.token);
        return success;
      },
    }),
    endpoint<AccountEmailBody>({
      method: 'post',
      path: '/auth/request-verification',
      credential: 'none',
      body: AccountEmailBody,
      doc: docs.requestVerification,
      before: perAddress,
      handle: async ({ services, body }) => {
        await services.auth.requestVerification(body.email);
        return success;
      },
    }),
    endpoint<AccountEmailBody>({
      method: 'post',
      path: '/auth/request-password-reset',
      credential: 'none',
      body: AccountEmailBody,
      doc: docs.requestPasswordReset,
      before: perAddress,
      handle: async ({ services, body }) => {
        await services.auth.requestPasswordReset(body.email);
        return success;
      },
    }),
    endpoint<ResetPasswordBody>({
      method: 'post',
      path: '/auth/reset-password',
      credential: 'none',
      body: ResetPasswordBody,
      doc: docs.resetPassword,
      before: perAddress,
      handle: async ({ services, body }) => {
        await services.auth.resetPassword(body.token, body.password);
        return success;
      },
    }),
  ],
};
