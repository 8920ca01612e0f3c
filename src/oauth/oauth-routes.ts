import { Router } from 'express';
import type { DataSource } from 'typeorm';
import { beginSignIn, finishSignIn, safeRedirect, STATE_COOKIE, STATE_MINUTES } from './oauth-state';
import { OAuthService } from './oauth-service';
import { oauthProviders } from './providers';
import type { Config } from '../config';
import { ApiError, badRequest, notFound } from '../http/errors';
import { cookieOptions, setSessionCookie } from '../accounts/auth-routes';

/** Sign-in with GitHub and Google: the provider list, the redirect to a provider and its callback. */
export function oauthRouter(config: Config, dataSource: DataSource): Router {
  const router = Router();
  const providers = oauthProviders(config.oauth);
  const service = new OAuthService(dataSource, config.disableSignups);
  const startUrl = (id: string) => `${config.publicUrl}/auth/oauth/${id}`;
  const stateCookie = { ...cookieOptions(config), path: '/auth/oauth' };
  const provider = (id: string) => {
    const found = providers.find((candidate) => candidate.id === id);
    if (!found) throw notFound('OAuth provider');
    return found;
  };

  router.get('/auth/oauth-config', (_req, res) => {
    res.json({ providers: providers.map(({ id, name }) => ({ id, name, authorizeUrl: startUrl(id) })) });
  });

  router.get('/auth/oauth/:provider', (req, res) => {
    const chosen = provider(req.params.provider);
    const { state, cookie } = beginSignIn(config.sessionSecret, chosen.id, safeRedirect(req.query.redirect));
    res
      .cookie(STATE_COOKIE, cookie, { ...stateCookie, maxAge: STATE_MINUTES * 60_000 })
      .redirect(302, chosen.authorizeUrl(`${startUrl(chosen.id)}/callback`, state));
  });

  router.get('/auth/oauth/:provider/callback', async (req, res) => {
    const chosen = provider(req.params.provider);
    res.clearCookie(STATE_COOKIE, stateCookie);
    const redirect = finishSignIn(config.sessionSecret, req.cookies?.[STATE_COOKIE], chosen.id, req.query.state);
    const { error, code } = req.query;
    if (error !== undefined) {
      const reason = typeof error === 'string' ? error.slice(0, 100) : 'error';
      throw new ApiError(400, 'OAUTH_DENIED', `${chosen.name} did not sign you in (${reason})`, {
        suggestion: `Approve Herald on the ${chosen.name} page, or sign in another way.`,
      });
    }
    if (typeof code !== 'string' || !code) throw badRequest(`${chosen.name} sent no authorization code`);
    const profile = await chosen.profile(code, `${startUrl(chosen.id)}/callback`);
    const { sessionToken } = await service.signIn(chosen.id, profile);
    setSessionCookie(res, config, sessionToken).redirect(302, `${config.publicUrl}${redirect}`);
  });

  return router;
}
