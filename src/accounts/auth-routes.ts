import { IsEmail, IsNotEmpty, IsString, MaxLength, MinLength } from 'class-validator';
import { Router, type CookieOptions, type Response } from 'express';
import type { Config } from '../config';
import { addressRateLimit } from '../http/middleware/rate-limit';
import { parseBody } from '../http/validate';
import { userView } from './auth-service';
import type { Services } from '../composition';
import { SESSION_COOKIE, SESSION_DAYS, closeSession } from './sessions';
import type { DataSource } from 'typeorm';

class Credentials {
  @IsEmail({}, { message: 'email must be a valid email address' }) email: string;
  @IsString() @MinLength(8) @MaxLength(256) password: string;
}

class LoginBody {
  @IsString() @IsNotEmpty() email: string;
  @IsString() @IsNotEmpty() password: string;
}

class EmailBody {
  @IsEmail({}, { message: 'email must be a valid email address' }) email: string;
}

class TokenBody {
  @IsString() @IsNotEmpty() token: string;
}

class PasswordResetBody extends TokenBody {
  @IsString() @MinLength(8) @MaxLength(256) password: string;
}

/** The attributes of Herald's cookies: HttpOnly, SameSite=Lax, Secure when PUBLIC_URL is https. */
export function cookieOptions(config: Config): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.publicUrl.startsWith('https://'),
    path: '/',
  };
}

/** Sets the `herald_session` cookie carrying a session token. */
export function setSessionCookie(res: Response, config: Config, token: string): Response {
  return res.cookie(SESSION_COOKIE, token, { ...cookieOptions(config), maxAge: SESSION_DAYS * 86_400_000 });
}

/**
 * Sign-up, sign-in, sign-out, email verification and password reset (`/auth/*`); OAuth lives in `oauth.ts`.
 * The endpoints that check a password or send an account email are limited per client address.
 */
export function authRouter(services: Services, config: Config, dataSource: DataSource): Router {
  const router = Router();
  const perAddress = addressRateLimit(dataSource, config.authRateLimitPerMinute);

  router.post('/auth/signup', perAddress, async (req, res) => {
    const body = parseBody(Credentials, req.body);
    const { user, sessionToken } = await services.auth.signup(body.email, body.password);
    setSessionCookie(res, config, sessionToken).status(201).json(userView(user));
  });

  router.post('/auth/login', perAddress, async (req, res) => {
    const body = parseBody(LoginBody, req.body);
    const { user, sessionToken } = await services.auth.login(body.email, body.password);
    setSessionCookie(res, config, sessionToken).json(userView(user));
  });

  router.get('/auth/logout', async (req, res) => {
    const token: unknown = req.cookies?.[SESSION_COOKIE];
    if (typeof token === 'string' && token) await closeSession(dataSource, token);
    res.clearCookie(SESSION_COOKIE, cookieOptions(config)).json({ success: true });
  });

  router.post('/auth/request-verification', perAddress, async (req, res) => {
    await services.auth.requestVerification(parseBody(EmailBody, req.body).email);
    res.json({ success: true });
  });

  router.post('/auth/verify-email', async (req, res) => {
    await services.auth.verifyEmail(parseBody(TokenBody, req.body).token);
    res.json({ success: true });
  });

  router.post('/auth/request-password-reset', perAddress, async (req, res) => {
    await services.auth.requestPasswordReset(parseBody(EmailBody, req.body).email);
    res.json({ success: true });
  });

  router.post('/auth/reset-password', perAddress, async (req, res) => {
    const body = parseBody(PasswordResetBody, req.body);
    await services.auth.resetPassword(body.token, body.password);
    res.json({ success: true });
  });

  return router;
}
