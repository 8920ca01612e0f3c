import express, { Router, type RequestHandler, type Response } from 'express';
import type { LinkPurpose } from '../contacts/links';
import type { PageOutcome, Preferences, PreferencesService } from '../contacts/preferences-service';
import * as views from './views';

const PAGE_PATHS = ['/unsubscribe/:token', '/subscribe/:token', '/manage/:token'];

/** Headers of every page: not cached or indexed, the token not leaked as a referrer, nothing but inline style. */
const pageHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Robots-Tag': 'noindex',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  });
  next();
};

/** The page, or for a refused token the "expired or not valid" page: 410 when it expired, else 404. */
function render(res: Response, outcome: PageOutcome, view: (page: Preferences) => string): void {
  if ('refused' in outcome) {
    res.status(outcome.refused === 'expired' ? 410 : 404).type('html').send(views.linkRefused(outcome.refused));
    return;
  }
  res.type('html').send(view(outcome));
}

/**
 * The contact's public pages, reached by the signed links in emails (no key): unsubscribe,
 * subscribe and manage, each opened only by a token of its own purpose. A GET only shows a form;
 * changes happen on POST. `POST /unsubscribe/{token}` is also the RFC 8058 one-click target, so it
 * takes any body (`List-Unsubscribe=One-Click`, or none).
 */
export function pagesRouter(preferences: PreferencesService): Router {
  const router = Router();
  router.use(PAGE_PATHS, pageHeaders, express.urlencoded({ extended: false, limit: '16kb' }));

  const show = (purpose: LinkPurpose, view: (page: Preferences) => string): RequestHandler<{ token: string }> => async (req, res) => {
    render(res, await preferences.find(purpose, req.params.token), view);
  };
  const change = (purpose: LinkPurpose, subscribed: boolean, view: (page: Preferences) => string): RequestHandler<{ token: string }> =>
    async (req, res) => {
      render(res, await preferences.setSubscribed(purpose, req.params.token, subscribed), view);
    };

  router.get('/unsubscribe/:token', show('unsubscribe', views.confirmUnsubscribe));
  router.post('/unsubscribe/:token', change('unsubscribe', false, views.unsubscribed));
  router.get('/subscribe/:token', show('subscribe', views.confirmSubscribe));
  router.post('/subscribe/:token', change('subscribe', true, views.subscribed));
  router.get('/manage/:token', show('manage', (page) => views.manage(page)));
  router.post('/manage/:token', async (req, res) => {
    const wanted = (req.body as Record<string, unknown> | undefined)?.subscribed;
    if (wanted !== 'true' && wanted !== 'false') {
      render(res, await preferences.find('manage', req.params.token), (page) => views.manage(page));
      return;
    }
    render(res, await preferences.setSubscribed('manage', req.params.token, wanted === 'true'), (page) => views.manage(page, true));
  });
  return router;
}
