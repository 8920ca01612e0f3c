import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  errorExample,
  errorResponse,
  jsonBody,
  jsonResponse,
  object,
  pathParam,
  rateLimitHeaders,
  schemaRef,
  trimmedPattern,
  uuid,
} from '../builders';
import type { PathModule } from '../types';

/** A DNS label as src/domains/records.ts takes it, in either letter case (it is lower-cased). */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** The last label holds a letter, which refuses IP addresses. */
const LAST_LABEL_HAS_LETTER = '[A-Za-z][A-Za-z0-9-]*\\.?[^A-Za-z0-9.-]*$';

const domainId = pathParam('id', 'The domain, as answered when it was added.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };

const exampleDomain = {
  id: '5b0e2a4c-8f13-4c6e-9d27-1a3f6b8c9e01',
  domain: 'example.com',
  status: 'PENDING',
  records: [
    {
      type: 'CNAME',
      name: 'x4k2p7qz3m5v8w1n6b9c0d2f4g7h1j3k._domainkey.example.com',
      value: 'x4k2p7qz3m5v8w1n6b9c0d2f4g7h1j3k.dkim.amazonses.com',
      status: 'VERIFIED',
    },
    {
      type: 'CNAME',
      name: 'a8s6d4f2g1h3j5k7l9z0x2c4v6b8n1m3._domainkey.example.com',
      value: 'a8s6d4f2g1h3j5k7l9z0x2c4v6b8n1m3.dkim.amazonses.com',
      status: 'VERIFIED',
    },
    {
      type: 'CNAME',
      name: 'q1w3e5r7t9y2u4i6o8p0a1s3d5f7g9h2._domainkey.example.com',
      value: 'q1w3e5r7t9y2u4i6o8p0a1s3d5f7g9h2.dkim.amazonses.com',
      status: 'VERIFIED',
    },
    { type: 'MX', name: 'mail.example.com', value: 'feedback-smtp.us-east-1.amazonses.com', priority: 10, status: 'PENDING' },
    { type: 'TXT', name: 'mail.example.com', value: 'v=spf1 include:amazonses.com ~all', status: 'PENDING' },
    { type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;', status: 'PENDING' },
  ],
  createdAt: '2025-01-01T12:00:00.000Z',
  verifiedAt: null,
};

const recordsDescription = [
  'The DNS records to publish, each with whether the last check found it:',
  '',
  '- **Identity** (required). With the `ses` transport: the three DKIM CNAMEs of SES Easy DKIM, ' +
    '`<token>._domainkey.<domain>` -> `<token>.dkim.amazonses.com`. With `smtp` or `outbox` (no provider ' +
    'identity to register, and Herald does not sign mail itself): one TXT `_herald.<domain>` = ' +
    '`herald-verification=<random token>` that proves the domain is yours; DKIM is then up to your SMTP relay.',
  '- **MAIL FROM** (required): MX `mail.<domain>` -> `feedback-smtp.<region>.amazonses.com` (priority 10; ' +
    '`SES_REGION`, `us-east-1` when unset) and SPF TXT `mail.<domain>` = `v=spf1 include:amazonses.com ~all`. ' +
    'On SES, `mail.<domain>` is set as the identity\'s MAIL FROM domain.',
  '- **DMARC** (recommended, not required): TXT `_dmarc.<domain>` = `v=DMARC1; p=none;`.',
  '',
  'How records match: CNAME and MX by host name (an MX of another priority counts); SPF by any `v=spf1` record ' +
    'at the name that includes `include:amazonses.com`; DMARC by any `v=DMARC1` policy; the verification TXT ' +
    'exactly.',
].join('\n');

const statusDescription = [
  '`PENDING` until every required record is found, then `VERIFIED` (with `verifiedAt`); `FAILED` is not used.',
  'A `VERIFIED` domain stays verified while its identity records are found, even when the MAIL FROM or DMARC ' +
    'records go missing (their `status` says so); when an identity record disappears it goes back to `PENDING`, ' +
    '`verifiedAt` becomes null and sending from it is refused until it is verified again.',
  'A domain that stays `PENDING` for 7 days (from when it was added, or fell back to `PENDING`) lapses: the ' +
    'background check removes it, with its SES identity, and any project may add it again.',
].join(' ');

/** Sender domains: adding one, the DNS records to publish, verification and removal. */
export const pathModule: PathModule = {
  tag: {
    name: 'Domains',
    description:
      'Sender domains. Mail may be sent `from` a verified domain of the project or any subdomain of one (a `from` ' +
      'on any other domain is refused with 403). A domain belongs to one project at a time. Verification looks ' +
      'the records up over DNS (the resolvers in `DNS_SERVERS`, the system\'s when unset): on demand with ' +
      '`GET /domains/{id}/verify`, and every 5 minutes in the background for every `PENDING` domain (the ' +
      'Temporal schedule `domain-check`), where a claim `PENDING` for 7 days lapses. Removing a domain, or the ' +
      'project that has it, deletes its SES identity; a project adding a domain never inherits an identity made ' +
      'for another claim or outside Herald. Secret key.',
  },
  schemas: {
    AddDomainBody: {
      ...object({
        domain: described(
          { type: 'string', allOf: [{ pattern: trimmedPattern(`(?:${LABEL}\\.)+${LABEL}\\.?`) }, { pattern: LAST_LABEL_HAS_LETTER }] },
          'A hostname such as `example.com` or `news.example.com`, at most 253 characters: two labels or more, the last ' +
            'with a letter; white space around it and one trailing dot are dropped, and it is stored lower-case ' +
            '(internationalised names, also accepted, in their `xn--` form). IP addresses and single labels are refused (422).',
        ),
      }),
      example: { domain: 'example.com' },
    },
    DomainRecord: object(
      {
        type: { type: 'string', enum: ['CNAME', 'TXT', 'MX'] },
        name: described({ type: 'string' }, 'The record name, fully qualified.'),
        value: described({ type: 'string' }, 'The CNAME target, TXT text or MX host.'),
        priority: described({ type: 'integer' }, 'MX records only.'),
        status: described(
          { type: 'string', enum: ['PENDING', 'VERIFIED'] },
          '`VERIFIED` when the last check found the record (on SES, identity records also when SES reports its ' +
            'DKIM verified). A lookup that got no usable answer (timeout, server failure) keeps the previous status.',
        ),
      },
      ['type', 'name', 'value', 'status'],
    ),
    Domain: object({
      id: uuid,
      domain: { type: 'string' },
      status: described({ type: 'string', enum: ['PENDING', 'VERIFIED', 'FAILED'] }, statusDescription),
      records: described(arrayOf(schemaRef('DomainRecord')), recordsDescription),
      createdAt: dateTime,
      verifiedAt: described({ ...dateTime, type: ['string', 'null'] }, 'When the domain became verified; null while pending.'),
    }),
  },
  paths: {
    '/domains': {
      post: {
        operationId: 'addDomain',
        summary: 'Add a sender domain',
        description:
          'Claims the domain for the project and answers the DNS records to publish, all `PENDING`. With the `ses` ' +
          'transport the domain is registered as an SES identity (Easy DKIM), tagged `herald-domain-claim` with the ' +
          "domain's id. A domain already added by any project (this one included) is refused with 409 " +
          '`DOMAIN_TAKEN`, unless that claim stayed `PENDING` for 7 days: it then lapses and this claim takes its ' +
          'place. An SES identity of the domain that an earlier, removed claim left is deleted and created anew, so ' +
          'the DKIM tokens are new and must be published; one that Herald did not create is left alone and the ' +
          'domain refused with 409 `DOMAIN_IDENTITY_EXISTS` (the operator deletes it from SES first). When SES ' +
          'cannot be reached: 503 `SERVICE_UNAVAILABLE`, nothing stored.',
        requestBody: jsonBody(schemaRef('AddDomainBody')),
        responses: {
          '201': jsonResponse('Added; publish the records.', schemaRef('Domain'), { ...okHeaders, example: exampleDomain }),
          '409': jsonResponse(
            'The domain is claimed by a project (`DOMAIN_TAKEN`), or SES has an identity for it that Herald did not create (`DOMAIN_IDENTITY_EXISTS`).',
            schemaRef('ErrorResponse'),
            {
              example: errorExample(
                409,
                'DOMAIN_TAKEN',
                'The domain example.com has already been added to a project; a claim that stays PENDING for 7 days lapses, and it may be added then',
              ),
            },
          ),
          '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The email provider (SES) could not be reached; try again'),
          ...commonErrors(400, ...secretKeyErrors, 413, 422),
        },
      },
    },
    '/domains/project/{projectId}': {
      parameters: [pathParam('projectId', "The key's own project.")],
      get: {
        operationId: 'listDomains',
        summary: "List a project's domains",
        description:
          "The project's domains, verified and pending, newest first. The path names the project, which must be " +
          "the API key's own: any other id answers 403.",
        responses: {
          '200': jsonResponse('The domains.', arrayOf(schemaRef('Domain')), { ...okHeaders, example: [exampleDomain] }),
          '403': jsonResponse(
            'The id is not the project of the key (`FORBIDDEN`), or the project is disabled (`PROJECT_DISABLED`).',
            schemaRef('ErrorResponse'),
            { example: errorExample(403, 'FORBIDDEN', 'This API key belongs to another project') },
          ),
          ...commonErrors(401, 429),
        },
      },
    },
    '/domains/{id}/verify': {
      parameters: [domainId],
      get: {
        operationId: 'verifyDomain',
        summary: 'Check a domain now',
        description:
          'Looks every record up over DNS now (and, on SES, reads the identity\'s DKIM status), stores each ' +
          "record's status and the domain's, and answers the domain. Pending domains are also checked every 5 " +
          'minutes in the background. A domain of another project is unknown (404).',
        responses: {
          '200': jsonResponse('The domain as checked.', schemaRef('Domain'), {
            ...okHeaders,
            example: { ...exampleDomain, status: 'VERIFIED', verifiedAt: '2025-01-01T12:30:00.000Z' },
          }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/domains/{id}': {
      parameters: [domainId],
      delete: {
        operationId: 'deleteDomain',
        summary: 'Remove a domain',
        description:
          'Removes the domain (on SES, deletes its identity; one SES no longer has is fine). Mail can no longer be ' +
          'sent from it. A domain of another project is unknown (404). When SES cannot be reached: 503, nothing ' +
          'removed.',
        responses: {
          '200': jsonResponse('Removed.', schemaRef('Success'), { ...okHeaders, example: { success: true } }),
          '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The email provider (SES) could not be reached; try again'),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
