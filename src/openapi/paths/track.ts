import {
  apiKeyAuth,
  commonErrors,
  dateTime,
  described,
  emailAddress,
  errorExample,
  jsonBody,
  jsonResponse,
  object,
  orNull,
  parameterRef,
  rateLimitHeaders,
  responseRef,
  schemaRef,
  uuid,
} from '../builders';
import type { Operation, PathModule, Response } from '../types';
import { DATA_RULES } from './contacts';

const RESERVED_NAMES =
  'Reserved names are refused: `email.*`, `contact.subscribed`, `contact.unsubscribed`, ' +
  '`segment.<slug>.entry` and `segment.<slug>.exit` (those events are recorded by Herald itself).';

const validationFailed: Response = jsonResponse(
  'The request failed validation (`VALIDATION_ERROR`): an invalid field, a reserved event name (field error code ' +
    '`reserved_event` on `event`) or a malformed `Idempotency-Key`. Nothing was written and the key is not used up.',
  schemaRef('ErrorResponse'),
  {
    examples: {
      reservedEvent: {
        summary: 'A reserved event name',
        value: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
          errors: [
            {
              field: 'event',
              message: 'The event name email.opened is reserved',
              code: 'reserved_event',
              received: 'email.opened',
            },
          ],
        }),
      },
      invalidEmail: {
        summary: 'An invalid email',
        value: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
          errors: [
            { field: 'email', message: 'Must be a valid email address', code: 'invalid_string', received: 'ada@' },
          ],
        }),
      },
    },
  },
);

/** The tracking operation; `/v1/track` and its dashboard alias `/events/track` differ only in id, summary and keys. */
export function trackOperation(options: {
  operationId: string;
  summary: string;
  keys: string;
  publicKey: boolean;
}): Operation {
  return {
    operationId: options.operationId,
    summary: options.summary,
    description: [
      `${options.keys} Upserts the contact by email (created if unknown), applies \`data\` to it, then records the ` +
        'event (source `API`) and starts the workflows it triggers. Tracking the same event again records a new ' +
        'event.',
      '',
      `${RESERVED_NAMES}`,
      '',
      '`subscribed`: a new contact is subscribed unless it is `false`; an existing contact keeps its state unless it ' +
        'is given. A change records `contact.subscribed` or `contact.unsubscribed`. Pass `false` to track an ' +
        'unsubscribed contact without resubscribing it.',
      '',
      DATA_RULES,
    ].join('\n'),
    ...(options.publicKey ? { security: apiKeyAuth } : {}),
    parameters: [parameterRef('IdempotencyKey')],
    requestBody: jsonBody(schemaRef('TrackRequest')),
    responses: {
      '200': jsonResponse('The event was recorded.', schemaRef('TrackResult'), {
        headers: rateLimitHeaders,
        example: {
          success: true,
          data: {
            contact: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
            event: 'e2a7c9d1-4b6f-4f3a-8c2e-1d5b7a9f0c36',
            timestamp: '2025-01-01T12:00:00.000Z',
          },
        },
      }),
      '409': responseRef('IdempotencyKeyReused'),
      '422': validationFailed,
      ...commonErrors(400, 401, 403, 413, 429),
    },
  };
}

/** `POST /v1/track`: records an event for a contact; the one endpoint the public key may call. */
export const pathModule: PathModule = {
  tag: {
    name: 'Track',
    description:
      'Recording what contacts do. Events feed workflow triggers, segment filters and campaign audiences. ' +
      'The only endpoint callable with the public key, so it can be called from a browser.',
  },
  schemas: {
    TrackRequest: {
      ...object(
        {
          email: described(emailAddress, 'The contact; created when unknown.'),
          event: described({ type: 'string', minLength: 1, maxLength: 255 }, `The event name. ${RESERVED_NAMES}`),
          data: described(
            orNull(schemaRef('ContactDataPatch')),
            'Stored on the contact and attached to the event; see the `data` rules.',
          ),
          subscribed: described(
            orNull({ type: 'boolean' }),
            'Subscription state to apply. New contacts default to `true`; existing ones are unchanged unless it is ' +
              'given (null counts as not given).',
          ),
        },
        ['email', 'event'],
      ),
      example: {
        email: 'ada@example.com',
        event: 'signed_up',
        data: { plan: 'pro', coupon: { value: 'WELCOME10', persistent: false } },
      },
    },
    TrackResult: object({
      success: { const: true },
      data: object({
        contact: described(uuid, 'The id of the contact.'),
        event: described(uuid, 'The id of the stored event.'),
        timestamp: dateTime,
      }),
    }),
  },
  paths: {
    '/v1/track': {
      post: trackOperation({
        operationId: 'track',
        summary: 'Track an event',
        keys: 'Public or secret key.',
        publicKey: true,
      }),
    },
  },
};
