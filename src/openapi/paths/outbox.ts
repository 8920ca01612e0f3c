import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  email,
  jsonResponse,
  noAuth,
  object,
  queryParam,
  schemaRef,
  uuid,
} from '../builders';
import type { PathModule } from '../types';

/** `GET /outbox`: the messages the development `outbox` transport kept instead of delivering. */
export const pathModule: PathModule = {
  tag: {
    name: 'Outbox',
    description:
      'Development only. With the `outbox` transport (the default when neither SES nor SMTP is configured) ' +
      'nothing leaves the machine: every message is stored here instead.',
  },
  schemas: {
    OutboxMessage: object({
      id: uuid,
      messageId: described({ type: 'string' }, 'The `Message-ID` the message would have been sent with.'),
      from: described({ type: 'string' }, 'Sender, possibly with a display name.'),
      to: arrayOf(email),
      replyTo: { type: ['string', 'null'] },
      subject: { type: 'string' },
      html: { type: 'string' },
      text: described({ type: 'string' }, 'The plain-text alternative generated from the HTML.'),
      headers: described(
        { type: 'object', additionalProperties: { type: 'string' } },
        'Extra headers, e.g. `List-Unsubscribe` on marketing mail.',
      ),
      attachments: arrayOf(object({ filename: { type: 'string' }, contentType: { type: 'string' }, size: { type: 'integer' } })),
      createdAt: dateTime,
    }),
  },
  paths: {
    '/outbox': {
      get: {
        operationId: 'listOutbox',
        summary: 'List kept messages',
        description: 'Newest first. Exists only while the transport is `outbox`; otherwise the path is unknown (404).',
        security: noAuth,
        parameters: [
          queryParam('to', 'Only messages addressed to this recipient.', email),
          queryParam('limit', 'How many messages to return; larger values are clamped to 200.', {
            type: 'integer',
            minimum: 1,
            maximum: 200,
            default: 50,
          }),
        ],
        responses: {
          '200': jsonResponse('The kept messages.', object({ data: arrayOf(schemaRef('OutboxMessage')) })),
          ...commonErrors(404),
        },
      },
    },
  },
};
