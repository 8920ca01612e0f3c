import { SPACE } from '../http/validate';
import { commonErrors, described, email, errorExample, ignoringCase, jsonResponse, object, orNull, parameterRef, responseRef, schemaRef, singleLine, uuid } from '../openapi/builders';
import type { EndpointDoc, Schema, Tag } from '../openapi/types';
import { DATA_RULES } from '../contacts/contacts-docs';
import { SendBatchResult, SendResult } from './send-dtos';
import { MAX_BATCH_RECIPIENTS, MAX_BATCH_REQUESTS, MAX_SCHEDULE_DAYS } from './send-request';

export const tag: Tag = { name: 'Send', description: 'Transactional email, delivered by a durable workflow per email. Secret key.' };

const address = (what: string) =>
  described({ anyOf: [email, object({ name: { type: 'string' }, email }, ['email'])] }, `${what}: an address, or \`{ name, email }\`.`);

/** The headers Herald writes itself or takes from other fields, in any case (src/sending/reserved-headers.ts). */
const RESERVED_HEADER = `^(?:(?:${['to', 'cc', 'bcc', 'from', 'sender', 'reply-to', 'return-path', 'message-id', 'date', 'mime-version']
  .map(ignoringCase)
  .join('|')})$|${ignoringCase('content-')}|${ignoringCase('list-unsubscribe')}|${ignoringCase('x-ses-')})`;

/** What `scheduledAt` does, as Markdown (shared by `/v1/send` and `/v1/send/batch`). */
const SCHEDULING = [
  '**Scheduled sends.** With `scheduledAt` (an ISO 8601 date-time with its offset, in the future and at most ' +
    `${MAX_SCHEDULE_DAYS} days ahead; anything else is a 422 naming \`scheduledAt\`) each email is stored \`SCHEDULED\` ` +
    'and its delivery workflow waits on a durable timer, which survives restarts. At that time, in one row update, the ' +
    'email becomes `QUEUED` unless it was cancelled (`POST /emails/{id}/cancel`), and is then sent like any other. ' +
    'Suppression is checked again then (an address suppressed meanwhile ends `SUPPRESSED`, nothing sent), and so is ' +
    'the project (a suspended project\'s email ends `FAILED`).',
  '',
  '**Scheduled sends and the emails cap.** A scheduled email counts against the cap when it is scheduled, in the ' +
    'billing period of the request, exactly like a queued one (so a request past the cap is refused at once), and never ' +
    'a second time: at its time the cap is checked without adding it, so it is sent unless the project is over its ' +
    'cap then (the cap was lowered meanwhile), in which case it ends `FAILED` with the reason and frees its slot. A ' +
    'cancelled email frees its slot too.',
].join('\n');

const DESCRIPTION = [
  'Transactional email to one or many recipients (up to 100), from a template or from the request itself. Secret key.',
  '',
  'The whole request is validated before anything is written (every problem is listed in one 422). Then, in one ' +
    'transaction, every recipient becomes a contact (created **unsubscribed** unless `subscribed` says otherwise; ' +
    '`data` is applied to each, see the rules below), each gets an email record, and each record is handed to its ' +
    'delivery workflow `email/<emailId>`, which renders it and sends it through the configured transport with ' +
    'retries; the answer comes once every record is stored. The request commits as a whole or not at all.',
  '',
  '- `from` must be on a verified sender domain (or a subdomain of one): otherwise 403 with code ' +
    '`INTERNAL_SERVER_ERROR` and a message naming the domain.',
  '- A recipient on the suppression list (the address, or its whole domain) gets a record with status `SUPPRESSED` ' +
    'and no email. Unsubscribed contacts still get transactional email.',
  '- A MARKETING template adds a visible unsubscribe link and the RFC 8058 `List-Unsubscribe` headers.',
  '- Subject and body are Liquid templates rendered per recipient with the contact\'s data (see Templates).',
  '- The project\'s emails cap for the billing period (see Billing limits) counts every queued recipient: a request ' +
    'that would go past it is refused as a whole with 403 `BILLING_LIMIT_EXCEEDED`; a contacts cap refuses a request ' +
    'that would create contacts past it the same way.',
  '- A suspended project (see Security) answers 403 `PROJECT_DISABLED`.',
  '',
  SCHEDULING,
  '',
  DATA_RULES,
].join('\n');

/**
 * The `/v1/send` body, written by hand: `to` and `from` are unions (an address, `{ name, email }`, or a list), and
 * `headers` a map with reserved names, which `parseSendRequest` validates with errors naming the item (`to[1]`,
 * `headers.Bcc`), all at once; a DTO could state neither.
 */
export const schemas: Record<string, Schema> = {
  SendRequest: {
    ...object(
      {
        to: described({ anyOf: [address('A recipient'), { type: 'array', minItems: 1, maxItems: 100, items: address('A recipient') }] }, 'One recipient or up to 100.'),
        template: described(uuid, 'A template of the project; its subject, body, sender and type are the defaults.'),
        subject: described(singleLine({ type: 'string', minLength: 1, maxLength: 998 }), 'Required without a template; no newlines.'),
        body: described({ type: 'string', minLength: 1 }, 'HTML (or Markdown with `type: markdown`); required without a template.'),
        type: described({ type: 'string', enum: ['html', 'markdown'], default: 'html' }, 'How `body` is written.'),
        from: address('The sender; required when the template has none'),
        name: described({ type: 'string' }, 'Sender name when `from` is a plain address.'),
        reply: described(email, 'Reply-To address.'),
        subscribed: described({ type: 'boolean' }, 'Subscription state to apply; contacts created here default to `false`.'),
        data: described(orNull(schemaRef('ContactDataPatch')), 'Applied to every recipient; `{ value, persistent: false }` values only render.'),
        headers: described(
          {
            type: 'object',
            propertyNames: { allOf: [singleLine({ pattern: '^[!-9;-~]+$' }), { not: { pattern: RESERVED_HEADER } }] },
            additionalProperties: singleLine({ type: 'string', maxLength: 998 }),
          },
          'Extra headers; names and values without CR/LF. Headers that name recipients or identity are refused with ' +
            '422 code `reserved_header` naming the header: `To`, `Cc`, `Bcc`, `From`, `Sender`, `Reply-To` (use `reply`), ' +
            '`Return-Path`, `Message-ID`, `Date`, `MIME-Version`, `Content-*`, `List-Unsubscribe*` and `X-SES-*`, in any case. ' +
            'Recipients come from `to` alone.',
        ),
        scheduledAt: described(
          orNull({ type: 'string', format: 'date-time' }),
          `When to send: in the future, at most ${MAX_SCHEDULE_DAYS} days ahead, with its offset. Absent or null: now.`,
        ),
        attachments: described(
          {
            type: 'array',
            maxItems: 10,
            items: object(
              {
                filename: singleLine({ type: 'string', minLength: 1, maxLength: 255 }),
                content: described({ type: 'string', pattern: `^[A-Za-z0-9+/\\r\\n]*={0,2}[${SPACE}]*$` }, 'Base64.'),
                contentType: described(
                  singleLine({ type: 'string', pattern: '^[A-Za-z0-9_.+-]+/[A-Za-z0-9_.+-]+$' }),
                  'MIME type; `application/octet-stream` when omitted.',
                ),
              },
              ['filename', 'content'],
            ),
          },
          'Up to 10, 10 MB in total once decoded.',
        ),
      },
      ['to'],
    ),
    anyOf: [{ required: ['template'] }, { required: ['subject', 'body'] }],
    example: {
      to: ['ada@example.com', { name: 'Bob', email: 'bob@example.com' }],
      from: 'hello@mail.example.com',
      subject: 'Your receipt, {{ name ?? "friend" }}',
      body: '<p>Thanks for your order of {{ plan }}.</p>',
      data: { plan: 'pro' },
    },
  },
  SendBatchRequest: described(
    { type: 'array', minItems: 1, maxItems: MAX_BATCH_REQUESTS, items: schemaRef('SendRequest') },
    `1 to ${MAX_BATCH_REQUESTS} \`/v1/send\` requests, with at most ${MAX_BATCH_RECIPIENTS.toLocaleString('en-US')} recipients in all.`,
  ),
};

export const send: EndpointDoc = {
  operationId: 'send',
  summary: 'Send a transactional email',
  description: DESCRIPTION,
  parameters: [parameterRef('IdempotencyKey')],
  requestBody: { schema: { allOf: [schemaRef('SendRequest'), schemaRef('StorableJson')] } },
  response: {
    description: "Every recipient's email is stored and queued, scheduled (with `scheduledAt`) or suppressed.",
    shape: SendResult,
    example: {
      success: true,
      data: {
        emails: [{ contact: { id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13', email: 'ada@example.com' }, email: '9c1e2f3a-4b5d-4e6f-8a7b-0c1d2e3f4a5b', status: 'QUEUED' }],
        timestamp: '2025-01-01T12:00:00.000Z',
      },
    },
  },
  errors: {
    ...commonErrors(400, 413, 422),
    '403': jsonResponse(
      'The sender domain is not verified (`INTERNAL_SERVER_ERROR`), the emails cap is reached ' +
        '(`BILLING_LIMIT_EXCEEDED`) or the project is suspended (`PROJECT_DISABLED`).',
      schemaRef('ErrorResponse'),
      {
        example: errorExample(403, 'BILLING_LIMIT_EXCEEDED', 'Billing limit exceeded: the project may send 1,000 emails in November 2026 and has used 1,000; this needs 2 more.'),
      },
    ),
    '409': responseRef('IdempotencyKeyReused'),
    '503': jsonResponse('Sending is unavailable right now (Temporal unreachable); nothing was stored.', schemaRef('ErrorResponse')),
  },
};

const BATCH_DESCRIPTION = [
  `Up to ${MAX_BATCH_REQUESTS} different \`/v1/send\` requests in one call, all or nothing. Secret key.`,
  '',
  'The body is an array of `/v1/send` request objects (each exactly as `/v1/send` takes it, `scheduledAt` included), ' +
    `with at most ${MAX_BATCH_RECIPIENTS.toLocaleString('en-US')} recipients across the batch. The whole batch is ` +
    'validated before anything runs: a problem in any item is a 422 whose field errors name the item, `[3].to` or ' +
    '`[0].headers.Bcc`, every problem of every item at once. The template, sender domain (403, naming the item) and ' +
    'Liquid syntax of every item are checked next, still before anything is stored. Then every item is stored in one ' +
    'transaction, exactly as `/v1/send` stores one request, and the emails cap is checked over the whole batch: a ' +
    'batch that would go past it is refused as a whole (403 `BILLING_LIMIT_EXCEEDED`). Nothing of a refused batch is ' +
    'stored or sent.',
  '',
  'The answer lists, per item and in the order sent, the emails of its recipients, as `/v1/send` answers them. An ' +
    '`Idempotency-Key` covers the whole batch: a second use is refused with 409 and sends nothing.',
].join('\n');

export const sendBatch: EndpointDoc = {
  operationId: 'sendBatch',
  summary: 'Send a batch of transactional emails',
  description: BATCH_DESCRIPTION,
  parameters: [parameterRef('IdempotencyKey')],
  requestBody: { schema: { allOf: [schemaRef('SendBatchRequest'), schemaRef('StorableJson')] } },
  response: {
    description: "Every item's emails, in order: stored and queued, scheduled or suppressed.",
    shape: SendBatchResult,
    example: {
      success: true,
      data: [
        { emails: [{ contact: { id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13', email: 'ada@example.com' }, email: '9c1e2f3a-4b5d-4e6f-8a7b-0c1d2e3f4a5b', status: 'QUEUED' }] },
        { emails: [{ contact: { id: '6c1e7b3f-9a4d-4d2f-8b8e-3f5a7c9d1e24', email: 'bob@example.com' }, email: 'ad2f3a4b-5c6e-4f7a-9b8c-1d2e3f4a5b6c', status: 'SCHEDULED' }] },
      ],
      timestamp: '2025-01-01T12:00:00.000Z',
    },
  },
  errors: {
    ...commonErrors(400, 413),
    '422': jsonResponse('The batch is not an array of 1 to 100 requests, or an item is invalid; each field error names its item.', schemaRef('ErrorResponse'), {
      example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
        errors: [{ field: '[3].to', code: 'required', message: 'to is required' }],
        suggestion: 'Check the fields listed in error.errors and send the request again.',
      }),
    }),
    '403': jsonResponse(
      "An item's sender domain is not verified (`INTERNAL_SERVER_ERROR`, the message names the item), the emails cap " +
        'would be passed by the batch (`BILLING_LIMIT_EXCEEDED`) or the project is suspended (`PROJECT_DISABLED`).',
      schemaRef('ErrorResponse'),
    ),
    '409': responseRef('IdempotencyKeyReused'),
    '503': jsonResponse('Sending is unavailable right now (Temporal unreachable); nothing was stored.', schemaRef('ErrorResponse')),
  },
};
