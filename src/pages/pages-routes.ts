import express, { type Response } from 'express';
import type { LinkPurpose } from '../contacts/links';
import type { PageOutcome, Preferences } from '../contacts/preferences-service';
import { endpoint, type EndpointContext, type RouteTable } from '../http/endpoint';
import { readBody } from '../http/read-body';
import type { EndpointDoc } from '../openapi/types';
import * as docs from './pages-docs';
import * as views from './views';

/** The page forms: small, URL-encoded. */
const FORM_LIMIT = '16kb';
const readForm = express.urlencoded({ extended: false, limit: FORM_LIMIT });

/** Headers of every page: not cached or indexed, the token not leaked as a referrer, nothing but inline style. */
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

/** The page, or for a refused token the "expired or not valid" page: 410 when it expired, else 404. */
function render(res: Response, outcome: PageOutcome, view: (page: Preferences) => string): void {
  if ('refused' in outcome) {
    res.status(outcome.refused === 'expired' ? 410 : 404).type('html').send(views.linkRefused(outcome.refused));
    return;
  }
  res.type('html').send(view(outcome));
}

type PageContext = EndpointContext<undefined, undefined>;

/** A page endpoint: no key, the page headers, the form read (if any), then the page the handler's outcome gives. */
function page(
  method: 'get' | 'post',
  purpose: LinkPurpose,
  doc: EndpointDoc,
  answer: (context: PageContext, token: string) => Promise<[PageOutcome, (page: Preferences) => string]>,
) {
  return endpoint({
    method,
    path: `/${purpose}/{token}`,
    credential: 'none',
    bodyKind: 'own',
    doc,
    handle: async (context) => {
      context.res.set(PAGE_HEADERS);
      await readBody(context.req, context.res, [readForm]);
      const [outcome, view] = await answer(context, context.params.token);
      render(context.res, outcome, view);
    },
  });
}

/** The subscription wanted by the manage form, if it says one. */
const wanted = (body: unknown): boolean | undefined => {
  const value = (body as Record<string, unknown> | undefined)?.subscribed;
  return value === 'true' ? true : value === 'false' ? false : undefined;
};

/**
 * The contact's public pages, reached by the signed links in emails (no key): unsubscribe,
 * subscribe and manage, each opened only by a token of its own purpose. A GET only shows a form;
 * changes happen on POST. `POST /unsubscribe/{token}` is also the RFC 8058 one-click target, so it
 * takes any body (`List-Unsubscribe=One-Click`, or none).
 */
export const pagesRoutes: RouteTable = {
  tag: docs.tag,
  endpoints: [
    page('get', 'unsubscribe', docs.showUnsubscribePage, async ({ services }, token) => [
      await services.preferences.find('unsubscribe', token),
      views.confirmUnsubscribe,
    ]),
    page('post', 'unsubscribe', docs.unsubscribe, async ({ services }, token) => [
      await services.preferences.setSubscribed('unsubscribe', token, false),
      views.unsubscribed,
    ]),
    page('get', 'subscribe', docs.showSubscribePage, async ({ services }, token) => [
      await services.preferences.find('subscribe', token),
      views.confirmSubscribe,
    ]),
    page('post', 'subscribe', docs.subscribe, async ({ services }, token) => [
      await services.preferences.setSubscribed('subscribe', token, true),
      views.subscribed,
    ]),
    page('get', 'manage', docs.showManagePage, async ({ services }, token) => [
      await services.preferences.find('manage', token),
      (shown) => views.manage(shown),
    ]),
    page('post', 'manage', docs.manageSubscription, async ({ services, req }, token) => {
      const subscribed = wanted(req.body);
      if (subscribed === undefined) return [await services.preferences.find('manage', token), (shown) => views.manage(shown)];
      return [await services.preferences.setSubscribed('manage', token, subscribed), (shown) => views.manage(shown, true)];
    }),
  ],
};
