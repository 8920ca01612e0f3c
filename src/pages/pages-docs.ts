import { pathParam } from '../openapi/builders';
import type { EndpointDoc, RequestBody, Response, SuccessDoc, Tag } from '../openapi/types';

export const tag: Tag = {
  name: 'Subscription pages',
  description:
    'Small HTML pages for recipients, opened from the links in emails; no key, the signed token names the contact. ' +
    'A GET only shows a form, so link scanners change nothing; a change fires `contact.subscribed` or ' +
    '`contact.unsubscribed`. Subscribing again does not lift a suppression (hard bounce, complaint).',
};

const token = pathParam(
  'token',
  'The signed contact token of the link (`unsubscribeUrl`, `subscribeUrl`, `manageUrl` in templates). Each link has ' +
    'its own token, which opens only its own page: an unsubscribe token works for a year after its email was rendered, ' +
    'a subscribe or manage token for 90 days. Tokens of the first format (a contact id and a signature) still open the ' +
    'unsubscribe page until 2027-12-01, and nothing else.',
  { type: 'string' },
);

const html = (description: string): SuccessDoc => ({ description, shape: { type: 'string' }, contentType: 'text/html' });
const htmlError = (description: string): Response => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const errors = {
  '404': htmlError(
    '"This link has expired or is not valid": the token was not made by this deployment, is for another page, or its ' +
      'contact no longer exists.',
  ),
  '410': htmlError('"This link has expired or is not valid": the token is past its expiry; a more recent email has a working link.'),
};

/** One page operation: answers HTML. */
const page = (operationId: string, summary: string, description: string, shown: string, requestBody?: EndpointDoc['requestBody']): EndpointDoc => ({
  operationId,
  summary,
  description,
  parameters: [token],
  ...(requestBody ? { requestBody } : {}),
  response: html(shown),
  errors,
});

const form = (schema: RequestBody['content'][string]['schema'], required: boolean, example?: string) => ({
  contentType: 'application/x-www-form-urlencoded',
  required,
  schema,
  ...(example ? { example } : {}),
});

export const showUnsubscribePage = page('showUnsubscribePage', 'Unsubscribe page', 'Asks to confirm; changes nothing.', 'The confirmation form.');
export const unsubscribe = page(
  'unsubscribe',
  'Unsubscribe',
  'Unsubscribes the contact. Also the RFC 8058 one-click target of the `List-Unsubscribe` header on marketing ' +
    'mail: any body is accepted (`List-Unsubscribe=One-Click`, the page form, or none).',
  '"You are unsubscribed".',
  form({ type: 'object', properties: { 'List-Unsubscribe': { const: 'One-Click' } } }, false, 'List-Unsubscribe=One-Click'),
);
export const showSubscribePage = page('showSubscribePage', 'Subscribe page', 'Asks to confirm; changes nothing.', 'The confirmation form.');
export const subscribe = page('subscribe', 'Subscribe', 'Subscribes the contact again; a suppression stays.', '"You are subscribed".');
export const showManagePage = page('showManagePage', 'Manage page', 'Shows the current subscription with a button to change it.', 'The current state.');
export const manageSubscription = page(
  'manageSubscription',
  'Change subscription',
  'Sets the subscription from the page form.',
  'The new state.',
  form(
    { type: 'object', properties: { subscribed: { type: 'string', enum: ['true', 'false'], description: 'The state wanted.' } }, required: ['subscribed'] },
    true,
  ),
);
