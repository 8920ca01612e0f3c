import { arrayOf, errorExample, errorResponse, jsonResponse, pathParam, schemaRef } from '../openapi/builders';
import { dtoRef } from '../openapi/operations';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { Domain } from './domains-dtos';

export const tag: Tag = {
  name: 'Domains',
  description:
    'Sender domains. Mail may be sent `from` a verified domain of the project or any subdomain of one (a `from` ' +
    'on any other domain is refused with 403). A domain belongs to one project at a time. Verification looks ' +
    "the records up over DNS (the resolvers in `DNS_SERVERS`, the system's when unset): on demand with " +
    '`GET /domains/{id}/verify`, and every 5 minutes in the background for every `PENDING` domain (the ' +
    'Temporal schedule `domain-check`), where a claim `PENDING` for 7 days lapses. Removing a domain, or the ' +
    'project that has it, deletes its SES identity; a project adding a domain never inherits an identity made ' +
    'for another claim or outside Herald. Secret key.',
};

const dkim = (token: string) => ({ type: 'CNAME', name: `${token}._domainkey.example.com`, value: `${token}.dkim.amazonses.com`, status: 'VERIFIED' });

const exampleDomain = {
  id: '5b0e2a4c-8f13-4c6e-9d27-1a3f6b8c9e01',
  domain: 'example.com',
  status: 'PENDING',
  records: [
    dkim('x4k2p7qz3m5v8w1n6b9c0d2f4g7h1j3k'),
    dkim('a8s6d4f2g1h3j5k7l9z0x2c4v6b8n1m3'),
    dkim('q1w3e5r7t9y2u4i6o8p0a1s3d5f7g9h2'),
    { type: 'MX', name: 'mail.example.com', value: 'feedback-smtp.us-east-1.amazonses.com', priority: 10, status: 'PENDING' },
    { type: 'TXT', name: 'mail.example.com', value: 'v=spf1 include:amazonses.com ~all', status: 'PENDING' },
    { type: 'TXT', name: '_dmarc.example.com', value: 'v=DMARC1; p=none;', status: 'PENDING' },
  ],
  createdAt: '2025-01-01T12:00:00.000Z',
  verifiedAt: null,
};

const domainId = pathParam('id', 'The domain, as answered when it was added.');
const sesUnavailable: Response = errorResponse(503, 'SERVICE_UNAVAILABLE', 'The email provider (SES) could not be reached; try again');

export const addDomain: EndpointDoc = {
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
  requestBody: { example: { domain: 'example.com' } },
  response: { status: 201, description: 'Added; publish the records.', shape: Domain, example: exampleDomain },
  errors: {
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
    '503': sesUnavailable,
  },
};

export const listDomains: EndpointDoc = {
  operationId: 'listDomains',
  summary: "List a project's domains",
  description:
    "The project's domains, verified and pending, newest first. The path names the project, which must be " +
    "the API key's own: any other id answers 403.",
  parameters: [pathParam('projectId', "The key's own project.")],
  response: { description: 'The domains.', shape: arrayOf(dtoRef(Domain)), example: [exampleDomain] },
  errors: {
    '403': jsonResponse(
      'The id is not the project of the key (`FORBIDDEN`), or the project is disabled (`PROJECT_DISABLED`).',
      schemaRef('ErrorResponse'),
      { example: errorExample(403, 'FORBIDDEN', 'This API key belongs to another project') },
    ),
  },
};

export const verifyDomain: EndpointDoc = {
  operationId: 'verifyDomain',
  summary: 'Check a domain now',
  description:
    "Looks every record up over DNS now (and, on SES, reads the identity's DKIM status), stores each " +
    "record's status and the domain's, and answers the domain. Pending domains are also checked every 5 " +
    'minutes in the background. A domain of another project is unknown (404).',
  parameters: [domainId],
  response: {
    description: 'The domain as checked.',
    shape: Domain,
    example: { ...exampleDomain, status: 'VERIFIED', verifiedAt: '2025-01-01T12:30:00.000Z' },
  },
};

export const deleteDomain: EndpointDoc = {
  operationId: 'deleteDomain',
  summary: 'Remove a domain',
  description:
    'Removes the domain (on SES, deletes its identity; one SES no longer has is fine). Mail can no longer be ' +
    'sent from it. A domain of another project is unknown (404). When SES cannot be reached: 503, nothing ' +
    'removed.',
  parameters: [domainId],
  response: { description: 'Removed.', shape: schemaRef('Success'), example: { success: true } },
  errors: { '503': sesUnavailable },
};
