import express, { Router, type RequestHandler, type Response } from 'express';
import type { Preferences, PreferencesService } from '../contacts/preferences-service';
import * as views from '../pages/views';

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

function render(res: Response, token: string, preferences: Preferences | undefined, view: (page: views.PageModel) => string): void {
  if (!preferences) {
    res.status(404).type('html').send(views.linkNotFound());
    return;
  }
  res.type('html').send(view({ ...preferences, token }));
}

/**
 * The contact's public pages, reached by the signed links in emails (no key): unsubscribe,
 * subscribe and manage. A GET only shows a form; changes happen on POST. `POST /unsubscribe/{token}`
 * is also the RFC 8058 one-click target, so it takes any body (`List-Unsubscribe=One-Click`, or none).
 */
export function pagesRouter(preferences: PreferencesService): Router {
  const router = Router();
  router.use(PAGE_PATHS, pageHeaders, express.urlencoded({ extended: false, limit: '16kb' }));

  const show = (view: (page: views.PageModel) => string): RequestHandler<{ token: string }> => async (req, res) => {
    render(res, req.params.token, await preferences.find(req.params.token), view);
  };
  const change = (subscribed: boolean, view: (page: views.PageModel) => string): RequestHandler<{ token: string }> => async (req, res) => {
    render(res, req.params.token, await preferences.setSubscribed(req.params.token, subscribed), view);
  };

  router.get('/unsubscribe/:token', show(views.confirmUnsubscribe));
  router.post('/unsubscribe/:token', change(false, views.unsubscribed));
  router.get('/subscribe/:token', show(views.confirmSubscribe));
  router.post('/subscribe/:token', change(true, views.subscribed));
  router.get('/manage/:token', show((page) => views.manage(page)));
  router.post('/manage/:token', async (req, res) => {
    const wanted = (req.body as Record<string, unknown> | undefined)?.subscribed;
    if (wanted !== 'true' && wanted !== 'false') {
      render(res, req.params.token, await preferences.find(req.params.token), (page) => views.manage(page));
      return;
    }
    render(res, req.params.token, await preferences.setSubscribed(req.params.token, wanted === 'true'), (page) => views.manage(page, true));
  });
  return router;
}
