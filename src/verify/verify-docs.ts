import { errorExample, jsonResponse, parameterRef, responseRef, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { VerifyResult } from './verify-dtos';

export const tag: Tag = {
  name: 'Verify',
  description:
    'Checking an email address before sending to it: syntax, the domain in DNS, disposable and relay ' +
    'services, likely typos, plus-addressing, free personal providers and whether the domain has a website.',
};

const flags = { isDisposable: false, isAlias: false, isPersonalEmail: false };

export const verify: EndpointDoc = {
  operationId: 'verify',
  summary: 'Verify an email address',
  description: [
    'Secret key. Checks one address and answers within a few seconds; nothing is stored and no mail is sent.',
    '',
    'A string that is not an email address (no @, consecutive dots, no top-level domain, too long...) is ' +
      'refused with 422 `VALIDATION_ERROR`, field code `invalid_string`, the reason as its message; so is a ' +
      'missing, empty or non-string `email`. A well-formed address that cannot receive mail is a 200 with ' +
      '`valid: false` and the reasons.',
    '',
    'DNS is asked through the resolvers in `DNS_SERVERS` (the system resolvers when unset); the DNS and ' +
      'website checks run at once, and each gives up after a few seconds. The website check contacts only ' +
      'public addresses unless `WEBHOOK_ALLOW_PRIVATE=true`.',
  ].join('\n'),
  parameters: [parameterRef('IdempotencyKey')],
  requestBody: { example: { email: 'ada+news@gmial.com' } },
  response: {
    description: 'The verification result.',
    shape: VerifyResult,
    examples: {
      deliverable: {
        summary: 'A deliverable address',
        value: {
          success: true,
          data: {
            email: 'ada@example.com',
            valid: true,
            ...flags,
            isTypo: false,
            isPlusAddressed: false,
            domainExists: true,
            hasWebsite: true,
            hasMxRecords: true,
            reasons: ['The domain has MX records.'],
          },
        },
      },
      typo: {
        summary: 'A likely typo',
        value: {
          success: true,
          data: {
            email: 'ada+news@gmial.com',
            valid: false,
            ...flags,
            isTypo: true,
            isPlusAddressed: true,
            domainExists: false,
            hasWebsite: false,
            hasMxRecords: false,
            reasons: ['The domain does not exist.', 'The domain looks like a typo of gmail.com.', 'The address uses plus addressing (a +tag).'],
            suggestion: 'gmail.com',
          },
        },
      },
    },
  },
  errors: {
    '409': responseRef('IdempotencyKeyReused'),
    '422': jsonResponse('`email` is not an email address, or is missing, empty or not a string (`VALIDATION_ERROR`).', schemaRef('ErrorResponse'), {
      example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
        errors: [{ field: 'email', message: 'The part before the @ has consecutive dots.', code: 'invalid_string', received: 'ada..lovelace@example.com' }],
      }),
    }),
  },
};
