import {
  commonErrors,
  cursorPage,
  dateTime,
  described,
  email,
  jsonBody,
  jsonResponse,
  object,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
} from '../builders';
import type { PathModule } from '../types';

const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const valueParam = pathParam('value', 'The address or domain, URL-encoded; matched case-insensitively.', { type: 'string', minLength: 1 });

const exampleEntry = { type: 'EMAIL', value: 'ada@example.com', reason: 'MANUAL', createdAt: '2025-01-01T12:00:00.000Z' };

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

/** The suppression list: addresses and whole domains a project never sends to. */
export const pathModule: PathModule = {
  tag: {
    name: 'Suppressions',
    description: `Addresses and whole domains the project never sends to. Secret key.\n\n${HONOURED}`,
  },
  schemas: {
    Suppression: {
      ...object({
        type: described({ type: 'string', enum: ['EMAIL', 'DOMAIN'] }, 'One address, or every address at a domain.'),
        value: described({ type: 'string' }, 'The address or the domain, lower-case.'),
        reason: described(
          { type: 'string', enum: ['BOUNCE', 'COMPLAINT', 'MANUAL'] },
          'A permanent bounce, a complaint, or added through this API.',
        ),
        createdAt: dateTime,
      }),
      example: exampleEntry,
    },
  },
  paths: {
    '/suppressions': {
      get: {
        operationId: 'listSuppressions',
        summary: 'List suppressions',
        description: 'Cursor-paginated, newest first. `total` is filled on the first page only (0 when a `cursor` is given).',
        parameters: [
          parameterRef('Limit'),
          parameterRef('Cursor'),
          queryParam('type', 'Only addresses (`EMAIL`) or only domains (`DOMAIN`); anything else is a 400.', {
            type: 'string',
            enum: ['EMAIL', 'DOMAIN'],
          }),
          queryParam('reason', 'Only entries with this reason; anything else is a 400.', {
            type: 'string',
            enum: ['BOUNCE', 'COMPLAINT', 'MANUAL'],
          }),
          queryParam('search', 'Only entries whose value contains this text (case-insensitive).', { type: 'string' }),
        ],
        responses: {
          '200': jsonResponse('A page of entries.', cursorPage(schemaRef('Suppression')), okHeaders),
          ...commonErrors(400, ...secretKeyErrors),
        },
      },
      post: {
        operationId: 'addSuppression',
        summary: 'Add an address or a domain',
        description:
          'Send exactly one of `email` (one address) and `domain` (every address at that exact domain); both or ' +
          'neither is a 422. The value is stored lower-case with reason `MANUAL`. Adding a value already listed ' +
          'changes nothing and answers 200 with the entry as it is (its reason may be `BOUNCE` or `COMPLAINT`). ' +
          'The contact keeps its subscription state; it simply receives nothing while listed.',
        requestBody: jsonBody({
          oneOf: [
            object({ email }),
            object({ domain: described({ type: 'string' }, 'A hostname such as `example.com`.') }),
          ],
        }),
        responses: {
          '201': jsonResponse('Added.', schemaRef('Suppression'), okHeaders),
          '200': jsonResponse('Already listed; the existing entry.', schemaRef('Suppression'), okHeaders),
          ...commonErrors(400, ...secretKeyErrors, 413, 422),
        },
      },
    },
    '/suppressions/{value}': {
      parameters: [valueParam],
      get: {
        operationId: 'getSuppression',
        summary: 'Get a suppression',
        description: 'The entry for exactly this value; an address covered only by its domain answers 404 (look up the domain).',
        responses: {
          '200': jsonResponse('The entry.', schemaRef('Suppression'), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
      delete: {
        operationId: 'removeSuppression',
        summary: 'Remove a suppression',
        description:
          'Sending to the address (or domain) resumes. Removing does not re-subscribe the contact: a contact that a ' +
          'bounce or complaint unsubscribed stays unsubscribed from marketing mail until it is re-subscribed.',
        responses: {
          '200': jsonResponse('Removed.', schemaRef('Success'), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
