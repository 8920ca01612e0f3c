import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  email,
  jsonResponse,
  sessionAuth,
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
      projectId: described({ type: ['string', 'null'], format: 'uuid' }, "The project the message was sent for; null for Herald's own account mail."),
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
        description:
          'Newest first. Exists only while the transport is `outbox`; otherwise the path is unknown (404). ' +
          "Needs a session and shows only mail of the signed-in user's projects and mail to their own address " +
          "(Herald's account mail, such as the verification link, until the address is verified; all of it after).",
        security: sessionAuth,
        parameters: [
          queryParam('to', 'Only messages addressed to this recipient.', email),
          queryParam('limit', 'How many messages to return; values outside 1..200 are clamped. Anything but a whole number answers 400.', {
            type: 'integer',
            minimum: 1,
            maximum: 200,
            default: 50,
          }),
        ],
        responses: {
          '200': jsonResponse('The kept messages.', object({ data: arrayOf(schemaRef('OutboxMessage')) })),
          ...commonErrors(400, 401, 404),
        },
      },
    },
  },
};
