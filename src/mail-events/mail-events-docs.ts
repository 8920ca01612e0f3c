import { described, errorResponse, object, responseRef, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Schema, Tag } from '../openapi/types';
import { MailEventResult } from './mail-events-dtos';

export const tag: Tag = {
  name: 'Mail events',
  description:
    'The receiver for what happens to sent email (deliveries, opens, clicks, bounces, complaints). Point an SES ' +
    'configuration set (`SES_CONFIGURATION_SET`) event destination at an SNS topic, and subscribe this URL to it.',
};

const text = { type: 'string' };

/**
 * The SNS envelope, written by hand: the body is JSON or JSON text (`text/plain`, as SNS sends it), read by
 * `parseSnsMessage`, which answers 400 (not a DTO's 422) to anything else, as SNS expects of a receiver.
 */
export const schemas: Record<string, Schema> = {
  SnsMessage: {
    ...object(
      {
        Type: { type: 'string', enum: ['Notification', 'SubscriptionConfirmation', 'UnsubscribeConfirmation'] },
        MessageId: described(text, 'Unique per notification; a notification delivered again is applied once.'),
        Message: described(text, 'For a `Notification`: the SES event-publishing record, as JSON text.'),
        TopicArn: text,
        Subject: text,
        Timestamp: text,
        SubscribeURL: described(text, 'For a `SubscriptionConfirmation`.'),
        Token: text,
        SignatureVersion: described({ type: 'string', enum: ['1', '2'] }, 'Checked when `MAIL_EVENTS_VERIFY_SNS=true`.'),
        Signature: text,
        SigningCertURL: text,
      },
      ['Type', 'MessageId', 'Message'],
    ),
    example: {
      Type: 'Notification',
      MessageId: '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
      TopicArn: 'arn:aws:sns:us-east-1:123456789012:herald-mail-events',
      Message: '{"eventType":"Delivery","mail":{"messageId":"0100018c-example","timestamp":"2025-01-01T12:00:00.000Z","tags":{"emailId":["8f14e45f-ceea-467a-9af0-0f0d2d6a7c10"]}},"delivery":{"timestamp":"2025-01-01T12:00:02.000Z"}}',
      Timestamp: '2025-01-01T12:00:03.000Z',
      SignatureVersion: '1',
      Signature: 'EXAMPLE…',
      SigningCertURL: 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-example.pem',
    },
  },
};

const EFFECTS = [
  '| SES `eventType` | email status | column set (if empty) | event stored on the contact | also |',
  '|---|---|---|---|---|',
  '| `Send` | - | - | - (`email.sent` was stored when Herald handed the message over) | |',
  '| `Delivery` | `DELIVERED` | `delivered_at` | `email.delivered` | |',
  '| `Open` | `OPENED` | `opened_at` | `email.opened` | |',
  '| `Click` | `CLICKED` | `clicked_at` | `email.clicked` (`link`) | |',
  '| `Bounce`, `bounceType` `Permanent` | `BOUNCED` | `bounced_at` | `email.bounced` (`bounceType`, `bounceSubType`, `diagnosticCode`) | address suppressed (`BOUNCE`), contact unsubscribed (`contact.unsubscribed`) |',
  '| `Bounce`, `Transient` or `Undetermined` | unchanged | - | `email.bounced` (same details) | no suppression: the address may work later |',
  '| `Complaint` | `COMPLAINED` | `complained_at` | `email.complained` (`complaintFeedbackType`) | address suppressed (`COMPLAINT`), contact unsubscribed |',
  '| `Reject`, `RenderingFailure` | `FAILED` (only from `QUEUED`/`SENT`) | - | `email.failed` (`reason`) | |',
  '| `DeliveryDelay` | unchanged | - | none (not final: SES keeps trying) | |',
].join('\n');

export const receiveMailEvents: EndpointDoc = {
  operationId: 'receiveMailEvents',
  summary: 'Receive mail events from Amazon SNS',
  description: [
    'No API key: the `secret` query parameter (`MAIL_EVENTS_SECRET`) authenticates, compared in constant time. ' +
      'A wrong or missing secret answers 401 and records nothing. With `MAIL_EVENTS_VERIFY_SNS=true` the SNS ' +
      'signature is checked as well, against the certificate at `SigningCertURL` (https, `sns.<region>.amazonaws.com` only).',
    '',
    'The body is an SNS message, sent as `text/plain` (as SNS does) or `application/json`.',
    '',
    '- `SubscriptionConfirmation`: confirmed by a GET to `SubscribeURL`, only when it is an https URL on an SNS host (otherwise 400).',
    '- `Notification`: its `Message` is an SES event record, matched to the email by the `emailId` tag Herald puts on ' +
      'every message (`mail.tags.emailId`, ignored unless a UUID), else by `mail.messageId`. It is applied in one ' +
      'transaction with a receipt of the SNS `MessageId`, so a notification delivered twice counts once.',
    '- An event that arrives before Herald has recorded the send (SNS can be faster than SES answering Herald) is kept ' +
      'and applied in the transaction that records the email `SENT` or `FAILED`, with the same effects, including the ' +
      'reputation check after a permanent bounce or complaint. One still unmatched after 24 hours is dropped by the daily ' +
      'housekeeping pass with a warning in the log naming it.',
    '',
    'Statuses only move forward: `QUEUED` < `SENT` < `DELIVERED` < `OPENED` < `CLICKED` < `BOUNCED` < `COMPLAINED`; ' +
      '`FAILED`, `SUPPRESSED` and `SKIPPED` stay. An event arriving late still fills its column, so an open ' +
      'followed by the delivery leaves the status `OPENED` with `delivered_at` set: events give the same result in ' +
      'any order. Stored events are SYSTEM events with `data` `{ emailId, messageId, subject, timestamp, ... }`, ' +
      'where `timestamp` is when SES saw it.',
    '',
    EFFECTS,
  ].join('\n'),
  requestBody: { schema: described(schemaRef('SnsMessage'), 'An SNS message; SNS sends it as JSON text with `text/plain`.') },
  response: { description: 'The message was handled.', shape: MailEventResult, example: { success: true, outcome: 'applied' } },
  errors: {
    '400': errorResponse(400, 'BAD_REQUEST', 'Not an SNS message, an unreadable SES record, or a SubscribeURL off SNS'),
    '401': errorResponse(401, 'UNAUTHORIZED', 'The secret is missing or wrong', { message: 'The mail events secret is missing or wrong' }),
    '403': errorResponse(403, 'INVALID_SIGNATURE', 'Signature checking is on and the SNS signature is not valid'),
    '413': responseRef('PayloadTooLarge'),
    '502': errorResponse(502, 'SUBSCRIPTION_CONFIRMATION_FAILED', 'SNS did not accept the subscription confirmation'),
  },
};
