import { jsonResponse, pathParam, rateLimitHeaders, schemaRef } from '../openapi/builders';
import { cursorPageOf, dtoRef } from '../openapi/operations';
import type { EndpointDoc, Tag } from '../openapi/types';
import { Suppression } from './suppressions-dtos';

const HONOURED = [
  'Every send path honours the list, checked when the email is queued and again just before it goes out:',
  '',
  '- `POST /v1/send`: the recipient gets an email record with status `SUPPRESSED` in the response; nothing is sent.',
  '- Campaigns leave suppressed contacts out of the audience (they are not counted as recipients).',
  "- A workflow `SEND_EMAIL` step skips a suppressed contact; the skip is recorded on the execution (`context.skipped`, reason `suppressed`).",
  '',
  'A `DOMAIN` entry covers every address whose part after `@` is exactly that domain; subdomains are not covered ' +
    '(`example.com` does not cover `mail.example.com`: list it too). A permanent bounce adds the address with reason ' +
    '`BOUNCE`, a complaint with `COMPLAINT`; entries added here have reason `MANUAL`.',
].join('\n');

export const tag: Tag = {
  name: 'Suppressions',
  description: `Addresses and whole domains the project never sends to. Secret key.\n\n${HONOURED}`,
};

const exampleEntry = { type: 'EMAIL', value: 'ada@example.com', reason: 'MANUAL', createdAt: '2025-01-01T12:00:00.000Z' };
const valueParam = pathParam('value', 'The address or domain, URL-encoded; matched case-insensitively.', { type: 'string', minLength: 1 });

export const listSuppressions: EndpointDoc = {
  operationId: 'listSuppressions',
  summary: 'List suppressions',
  description: 'Cursor-paginated, newest first. `total` is filled on the first page only (0 when a `cursor` is given).',
  response: { description: 'A page of entries.', shape: cursorPageOf(Suppression) },
};

export const addSuppression: EndpointDoc = {
  operationId: 'addSuppression',
  summary: 'Add an address or a domain',
  description:
    'Send exactly one of `email` (one address) and `domain` (every address at that exact domain); both or ' +
    'neither is a 422. The value is stored lower-case with reason `MANUAL`. Adding a value already listed ' +
    'changes nothing and answers 200 with the entry as it is (its reason may be `BOUNCE` or `COMPLAINT`). ' +
    'The contact keeps its subscription state; it simply receives nothing while listed.',
  response: { status: 201, description: 'Added.', shape: Suppression, example: exampleEntry },
  errors: { '200': jsonResponse('Already listed; the existing entry.', dtoRef(Suppression), { headers: rateLimitHeaders }) },
};

export const getSuppression: EndpointDoc = {
  operationId: 'getSuppression',
  summary: 'Get a suppression',
  description: 'The entry for exactly this value; an address covered only by its domain answers 404 (look up the domain).',
  parameters: [valueParam],
  response: { description: 'The entry.', shape: Suppression },
};

export const removeSuppression: EndpointDoc = {
  operationId: 'removeSuppression',
  summary: 'Remove a suppression',
  description:
    'Sending to the address (or domain) resumes. Removing does not re-subscribe the contact: a contact that a ' +
    'bounce or complaint unsubscribed stays unsubscribed from marketing mail until it is re-subscribed.',
  parameters: [valueParam],
  response: { description: 'Removed.', shape: schemaRef('Success'), example: { success: true } },
};
