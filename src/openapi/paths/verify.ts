import {
  arrayOf,
  commonErrors,
  described,
  errorExample,
  jsonBody,
  jsonResponse,
  object,
  parameterRef,
  rateLimitHeaders,
  responseRef,
  schemaRef,
} from '../builders';
import type { PathModule } from '../types';

const flag = (description: string) => described({ type: 'boolean' }, description);

/** `POST /v1/verify`: checks whether an email address can receive mail, and what kind of address it is. */
export const pathModule: PathModule = {
  tag: {
    name: 'Verify',
    description:
      'Checking an email address before sending to it: syntax, the domain in DNS, disposable and relay ' +
      'services, likely typos, plus-addressing, free personal providers and whether the domain has a website.',
  },
  schemas: {
    VerifyRequest: {
      ...object({ email: described({ type: 'string', format: 'email', minLength: 1 }, 'The address to check.') }),
      example: { email: 'ada+news@gmial.com' },
    },
    VerificationResult: object(
      {
        email: described({ type: 'string' }, 'The address as checked (surrounding whitespace removed).'),
        valid: flag(
          'True only when the syntax is valid, the domain has MX records (or, without MX, A/AAAA records) and ' +
            'it is not a disposable email service.',
        ),
        isDisposable: flag('The domain (or a parent domain) belongs to a disposable email service.'),
        isAlias: flag(
          'The address belongs to a relay service that hands out forwarding aliases (Apple Hide My Email, ' +
            'DuckDuckGo, Firefox Relay, SimpleLogin, addy.io, Proton Pass, ...).',
        ),
        isTypo: flag('The domain looks like a misspelling of a well-known mailbox provider; see `suggestion`.'),
        isPlusAddressed: flag('The part before the @ carries a `+tag` (`ada+news@example.com`).'),
        isPersonalEmail: flag('The domain is a free personal mailbox provider (Gmail, Outlook, Yahoo, iCloud, ...).'),
        domainExists: flag('The domain has MX or A/AAAA records in DNS.'),
        hasWebsite: flag(
          'The domain answered an HTTP request (`HEAD https://<domain>/` or `http://<domain>/`, any status) ' +
            'within about 3 seconds.',
        ),
        hasMxRecords: flag('The domain has MX records (a null MX, "accepts no mail", does not count).'),
        reasons: described(
          arrayOf({ type: 'string' }),
          'Short English sentences explaining the verdict and every flag that is set: first what DNS says about ' +
            'the domain (or why the syntax is invalid), then one sentence per finding.',
        ),
        suggestion: described(
          { type: 'string' },
          'Present only when `isTypo` is true: the domain that was probably meant (`gmail.com` for `gmial.com`).',
        ),
      },
      [
        'email',
        'valid',
        'isDisposable',
        'isAlias',
        'isTypo',
        'isPlusAddressed',
        'isPersonalEmail',
        'domainExists',
        'hasWebsite',
        'hasMxRecords',
        'reasons',
      ],
    ),
    VerifyResult: object({ success: { const: true }, data: schemaRef('VerificationResult') }),
  },
  paths: {
    '/v1/verify': {
      post: {
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
        requestBody: jsonBody(schemaRef('VerifyRequest')),
        responses: {
          '200': jsonResponse('The verification result.', schemaRef('VerifyResult'), {
            headers: rateLimitHeaders,
            examples: {
              deliverable: {
                summary: 'A deliverable address',
                value: {
                  success: true,
                  data: {
                    email: 'ada@example.com',
                    valid: true,
                    isDisposable: false,
                    isAlias: false,
                    isTypo: false,
                    isPlusAddressed: false,
                    isPersonalEmail: false,
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
                    isDisposable: false,
                    isAlias: false,
                    isTypo: true,
                    isPlusAddressed: true,
                    isPersonalEmail: false,
                    domainExists: false,
                    hasWebsite: false,
                    hasMxRecords: false,
                    reasons: [
                      'The domain does not exist.',
                      'The domain looks like a typo of gmail.com.',
                      'The address uses plus addressing (a +tag).',
                    ],
                    suggestion: 'gmail.com',
                  },
                },
              },
            },
          }),
          '409': responseRef('IdempotencyKeyReused'),
          '422': jsonResponse('`email` is not an email address, or is missing, empty or not a string (`VALIDATION_ERROR`).', schemaRef('ErrorResponse'), {
            example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
              errors: [{ field: 'email', message: 'The part before the @ has consecutive dots.', code: 'invalid_string', received: 'ada..lovelace@example.com' }],
            }),
          }),
          ...commonErrors(400, 401, 403, 413, 429),
        },
      },
    },
  },
};
