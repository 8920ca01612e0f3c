import { arrayOf, errorExample, jsonResponse, pathParam, schemaRef } from '../openapi/builders';
import { cursorPageOf, dtoRef } from '../openapi/operations';
import type { EndpointDoc, Tag } from '../openapi/types';
import { WEBHOOK_EVENT_TYPES } from './webhook-events';
import { MAX_ENDPOINTS_PER_PROJECT, MAX_PENDING_TESTS } from './webhooks-queries';
import { Webhook, WebhookDelivery } from './webhooks-dtos';

export const tag: Tag = {
  name: 'Webhooks',
  description: [
    "Event webhooks: Herald POSTs the project's events to your endpoints, signed, as they happen. Secret key. " +
      `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} endpoints.`,
    '',
    `**Event types**: ${WEBHOOK_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}, and \`segment.<slug>.entry\` / ` +
      '`segment.<slug>.exit` of tracked segments. An endpoint subscribes to names, or to `*` for all of them.',
    '',
    '**Body**: `{ "type": <event type>, "timestamp": <ISO date-time the event happened>, "data": { ... } }`, ' +
      '`Content-Type: application/json`, the same bytes on every attempt. `email.*` data carries `emailId`, ' +
      '`contactId`, `to`, `subject` and, when they apply, `campaignId`, `workflowId`, `templateId` and the ' +
      "provider's detail (bounce type, link clicked); `contact.*` and `segment.*` data carry `contactId`, `email`, " +
      '`subscribed`, `data` (and `segmentId`).',
    '',
    '**Signature** ([Standard Webhooks](https://www.standardwebhooks.com)): `webhook-id` is `msg_<eventId>`, the ' +
      'same on every retry and for every endpoint (use it to drop duplicates); `webhook-timestamp` is the Unix ' +
      'time of the attempt in seconds; `webhook-signature` is `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` ' +
      'keyed with the base64-decoded part of the secret after `whsec_`. Compare in constant time and refuse ' +
      'timestamps more than 5 minutes away; the README has a receiver in a few lines, and any Standard Webhooks ' +
      'library verifies it.',
    '',
    '**Delivery**: recording an event never waits for your endpoint; a durable workflow per event and endpoint ' +
      '(`hook/<endpointId>/<eventId>` in the Temporal UI) POSTs it within about a second, with a 10 s timeout and ' +
      'no redirects followed. Any 2xx answer succeeds; anything else (3xx, 4xx, 5xx, timeout, refused ' +
      'connection) is retried 5 s, 10 s, 20 s, ... doubling up to an hour apart, for 25 hours, then the delivery ' +
      'is `FAILED`. Restarts of Herald lose nothing. An endpoint whose deliveries have all failed for 5 days is ' +
      'disabled (`enabled: false`, `disabledReason` says why); `PATCH` it with `enabled: true` once it is fixed. ' +
      'Targets on loopback, private, link-local or other non-public addresses are refused, when the endpoint is ' +
      'saved and at every attempt, unless the server runs with `WEBHOOK_ALLOW_PRIVATE=true`. Deliveries are listed ' +
      'for 30 days.',
  ].join('\n'),
};

const exampleWebhook = {
  id: '0b7d2c1e-4f3a-4e8b-9c6d-2a1f0e9d8c7b',
  url: 'https://example.com/herald/webhooks',
  events: ['email.delivered', 'email.bounced', 'contact.unsubscribed'],
  description: 'Order service',
  enabled: true,
  failingSince: null,
  disabledReason: null,
  disabledAt: null,
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-01T12:00:00.000Z',
};
const exampleSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+XkAz5pZtnI=';

const exampleDelivery = {
  id: '6e1c9a4b-2d7f-4b3e-8a5c-1f0e9d8c7b6a',
  eventId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  eventType: 'email.delivered',
  status: 'DELIVERED',
  attempts: 2,
  lastStatusCode: 200,
  lastError: null,
  createdAt: '2025-01-01T12:05:00.000Z',
  deliveredAt: '2025-01-01T12:05:06.000Z',
};

const webhookId = pathParam('id', 'The endpoint, as answered when it was created.');

const urlRefused = jsonResponse('A field is not valid, or `url` targets a non-public address (`VALIDATION_ERROR`, naming the field).', schemaRef('ErrorResponse'), {
  example: errorExample(422, 'VALIDATION_ERROR', 'Request validation failed', {
    errors: [{ field: 'url', code: 'invalid_string', message: 'Webhook address 127.0.0.1 is not public; set WEBHOOK_ALLOW_PRIVATE=true to allow it' }],
  }),
});

export const createWebhook: EndpointDoc = {
  operationId: 'createWebhook',
  summary: 'Create a webhook endpoint',
  description:
    'Subscribes a URL to event types and answers the endpoint with its signing `secret`, shown here and on ' +
    `rotation only. At most ${MAX_ENDPOINTS_PER_PROJECT} endpoints per project (409 \`LIMIT_EXCEEDED\`).`,
  requestBody: { example: { url: exampleWebhook.url, events: exampleWebhook.events, description: exampleWebhook.description } },
  response: { status: 201, description: 'Created; keep the secret.', shape: Webhook, example: { ...exampleWebhook, secret: exampleSecret } },
  errors: {
    '409': jsonResponse(`The project has ${MAX_ENDPOINTS_PER_PROJECT} endpoints already (\`LIMIT_EXCEEDED\`).`, schemaRef('ErrorResponse'), {
      example: errorExample(409, 'LIMIT_EXCEEDED', `A project has at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints; delete one first`),
    }),
    '422': urlRefused,
  },
};

export const listWebhooks: EndpointDoc = {
  operationId: 'listWebhooks',
  summary: 'List webhook endpoints',
  description: "The project's endpoints, oldest first, without their secrets.",
  response: { description: 'The endpoints.', shape: arrayOf(dtoRef(Webhook)), example: [exampleWebhook] },
};

export const getWebhook: EndpointDoc = {
  operationId: 'getWebhook',
  summary: 'Get a webhook endpoint',
  description: 'One endpoint, without its secret. An endpoint of another project is unknown (404).',
  parameters: [webhookId],
  response: { description: 'The endpoint.', shape: Webhook, example: exampleWebhook },
};

export const updateWebhook: EndpointDoc = {
  operationId: 'updateWebhook',
  summary: 'Change a webhook endpoint',
  description:
    'Changes `url`, `events`, `description` or `enabled`; fields left out are kept. A new `url` or `events` applies ' +
    'to events recorded from now on (and to the next attempts of deliveries under way, for `url`). `enabled: true` ' +
    'turns a disabled endpoint back on and forgets its failures; `enabled: false` stops it, and deliveries under ' +
    'way end `FAILED` at their next attempt.',
  parameters: [webhookId],
  requestBody: { example: { events: ['*'], enabled: true } },
  response: { description: 'The endpoint as changed, without its secret.', shape: Webhook, example: { ...exampleWebhook, events: ['*'] } },
  errors: { '422': urlRefused },
};

export const deleteWebhook: EndpointDoc = {
  operationId: 'deleteWebhook',
  summary: 'Delete a webhook endpoint',
  description: 'Deletes the endpoint and its deliveries; deliveries under way make no further attempt.',
  parameters: [webhookId],
  response: { description: 'Deleted.', shape: schemaRef('Success'), example: { success: true } },
};

export const listWebhookDeliveries: EndpointDoc = {
  operationId: 'listWebhookDeliveries',
  summary: "List an endpoint's deliveries",
  description: 'Cursor-paginated, newest first: each event sent (or being sent) to the endpoint, with how its attempts went.',
  parameters: [webhookId],
  response: { description: 'A page of deliveries.', shape: cursorPageOf(WebhookDelivery) },
};

export const testWebhook: EndpointDoc = {
  operationId: 'testWebhook',
  summary: 'Send a test event',
  description:
    'Records a `webhook.test` event for this endpoint alone, whatever it subscribes to, and delivers it like any ' +
    'other event (signed, retried); answers its delivery, `PENDING`. Follow it on the deliveries list. Its data: ' +
    '`{ "webhookId": <id>, "message": ... }`. At most ' +
    `${MAX_PENDING_TESTS} of an endpoint's test events wait for delivery at once (409 \`LIMIT_EXCEEDED\`).`,
  parameters: [webhookId],
  response: {
    status: 202,
    description: 'Recorded; the POST follows within about a second.',
    shape: WebhookDelivery,
    example: { ...exampleDelivery, eventType: 'webhook.test', status: 'PENDING', attempts: 0, lastStatusCode: null, deliveredAt: null },
  },
  errors: {
    '409': jsonResponse(`${MAX_PENDING_TESTS} test events to this endpoint are not delivered yet (\`LIMIT_EXCEEDED\`).`, schemaRef('ErrorResponse'), {
      example: errorExample(
        409,
        'LIMIT_EXCEEDED',
        `This endpoint has ${MAX_PENDING_TESTS} test events not delivered yet; send another once one is delivered or failed (GET /webhooks/{id}/deliveries)`,
      ),
    }),
  },
};

export const rotateWebhookSecret: EndpointDoc = {
  operationId: 'rotateWebhookSecret',
  summary: "Replace an endpoint's secret",
  description:
    'Generates a new signing secret and answers the endpoint with it (shown this once). Every attempt from now ' +
    'on, retries of earlier events included, is signed with the new secret only.',
  parameters: [webhookId],
  response: { description: 'The endpoint with its new secret.', shape: Webhook, example: { ...exampleWebhook, secret: exampleSecret } },
};
