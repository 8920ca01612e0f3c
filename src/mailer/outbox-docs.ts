import { responseRef } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { OutboxList } from './outbox-dtos';

export const tag: Tag = {
  name: 'Outbox',
  description:
    'Development only. With the `outbox` transport (the default when neither SES nor SMTP is configured) ' +
    'nothing leaves the machine: every message is stored here instead.',
};

export const listOutbox: EndpointDoc = {
  operationId: 'listOutbox',
  summary: 'List kept messages',
  description:
    'Newest first. Exists only while the transport is `outbox`; otherwise the path is unknown (404). ' +
    "Needs a session and shows only mail of the signed-in user's projects and mail to their own address " +
    "(Herald's account mail, such as the verification link, until the address is verified; all of it after).",
  response: { description: 'The kept messages.', shape: OutboxList },
  errors: { '404': responseRef('NotFound') },
};
