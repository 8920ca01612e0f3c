import { described, noAuth, pathParam } from '../builders';
import type { Operation, PathModule, RequestBody, Response } from '../types';

const token = pathParam(
  'token',
  'The signed contact token of the link (`unsubscribeUrl`, `subscribeUrl`, `manageUrl` in templates). Each link has ' +
    'its own token, which opens only its own page: an unsubscribe token works for a year after its email was rendered, ' +
    'a subscribe or manage token for 90 days. Tokens of the first format (a contact id and a signature) still open the ' +
    'unsubscribe page until 2027-12-01, and nothing else.',
  { type: 'string' },
);

const html = (description: string): Response => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });

const notFound = html(
  '"This link has expired or is not valid": the token was not made by this deployment, is for another page, or its ' +
    'contact no longer exists.',
);
const expired = html('"This link has expired or is not valid": the token is past its expiry; a more recent email has a working link.');

/** One page operation: answers HTML, no authentication. */
function page(operationId: string, summary: string, description: string, shown: string, requestBody?: RequestBody): Operation {
  return {
    operationId,
    summary,
    description,
    security: noAuth,
    ...(requestBody ? { requestBody } : {}),
    responses: { '200': html(shown), '404': notFound, '410': expired },
  };
}

const oneClickBody: RequestBody = {
  required: false,
  content: {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', properties: { 'List-Unsubscribe': { const: 'One-Click' } } },
      example: 'List-Unsubscribe=One-Click',
    },
  },
};

const manageBody: RequestBody = {
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        properties: { subscribed: described({ type: 'string', enum: ['true', 'false'] }, 'The state wanted.') },
        required: ['subscribed'],
      },
    },
  },
};

/** The public unsubscribe, subscribe and manage pages that the links in emails open. */
export const pathModule: PathModule = {
  tag: {
    name: 'Subscription pages',
    description:
      'Small HTML pages for recipients, opened from the links in emails; no key, the signed token names the contact. ' +
      'A GET only shows a form, so link scanners change nothing; a change fires `contact.subscribed` or ' +
      '`contact.unsubscribed`. Subscribing again does not lift a suppression (hard bounce, complaint).',
  },
  paths: {
    '/unsubscribe/{token}': {
      parameters: [token],
      get: page('showUnsubscribePage', 'Unsubscribe page', 'Asks to confirm; changes nothing.', 'The confirmation form.'),
      post: page(
        'unsubscribe',
        'Unsubscribe',
        'Unsubscribes the contact. Also the RFC 8058 one-click target of the `List-Unsubscribe` header on marketing ' +
          'mail: any body is accepted (`List-Unsubscribe=One-Click`, the page form, or none).',
        '"You are unsubscribed".',
        oneClickBody,
      ),
    },
    '/subscribe/{token}': {
      parameters: [token],
      get: page('showSubscribePage', 'Subscribe page', 'Asks to confirm; changes nothing.', 'The confirmation form.'),
      post: page('subscribe', 'Subscribe', 'Subscribes the contact again; a suppression stays.', '"You are subscribed".'),
    },
    '/manage/{token}': {
      parameters: [token],
      get: page('showManagePage', 'Manage page', 'Shows the current subscription with a button to change it.', 'The current state.'),
      post: page('manageSubscription', 'Change subscription', 'Sets the subscription from the page form.', 'The new state.', manageBody),
    },
  },
};
