import { SPACE } from '../http/validate';
import { commonErrors, described, email, errorExample, ignoringCase, jsonResponse, object, orNull, parameterRef, responseRef, schemaRef, singleLine, uuid } from '../openapi/builders';
import type { EndpointDoc, Schema, Tag } from '../openapi/types';
import { DATA_RULES } from '../contacts/contacts-docs';
import { SendResult } from './send-dtos';

export const tag: Tag = { name: 'Send', description: 'Transactional email, delivered by a durable workflow per email. Secret key.' };

const address = (what: string) =>
  described({ anyOf: [email, object({ name: { type: 'string' }, email }, ['email'])] }, `${what}: an address, or \`{ name, email }\`.`);

/** The headers Herald writes itself or takes from other fields, in any case (src/sending/reserved-headers.ts). */
const RESERVED_HEADER = `^(?:(?:${['to', 'cc', 'bcc', 'from', 'sender', 'reply-to', 'return-path', 'message-id', 'date', 'mime-version']
  .map(ignoringCase)
  .join('|')})$|${ignoringCase('content-')}|${ignoringCase('list-unsubscribe')})`;

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
            '`Return-Path`, `Message-ID`, `Date`, `MIME-Version`, `Content-*` and `List-Unsubscribe*`, in any case. ' +
            'Recipients come from `to` alone.',
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
};

export const send: EndpointDoc = {
  operationId: 'send',
  summary: 'Send a transactional email',
  description: DESCRIPTION,
  parameters: [parameterRef('IdempotencyKey')],
  requestBody: { schema: { allOf: [schemaRef('SendRequest'), schemaRef('StorableJson')] } },
  response: {
    description: "Every recipient's email is stored and queued (or suppressed).",
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
