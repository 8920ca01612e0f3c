import { errorResponse, pathParam } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { EmailRecord } from './emails-dtos';

export const tag: Tag = {
  name: 'Emails',
  description:
    'One email record (`/v1/send`, `/v1/send/batch`, campaigns, workflow steps, test sends) by the id the send answered. ' +
    'Secret key; another project\'s email, or an id that is not a UUID, is a 404.\n\n' +
    'Statuses: `SCHEDULED` (waiting for `scheduledAt`), `QUEUED`, `SENT`, `DELIVERED` (also after an open or a click, ' +
    'which the activity feed and analytics show), `BOUNCED`, `COMPLAINED`, `FAILED`, `SUPPRESSED` (nothing sent), ' +
    '`CANCELLED` (a scheduled email cancelled, or a campaign email skipped because its campaign was cancelled).',
};

const emailId = pathParam('id', 'The email, as `/v1/send` answered it (`email`).');

const example = {
  id: '9c1e2f3a-4b5d-4e6f-8a7b-0c1d2e3f4a5b',
  to: 'ada@example.com',
  subject: 'Your receipt, {{ name ?? "friend" }}',
  status: 'SCHEDULED',
  scheduledAt: '2025-01-02T09:00:00.000Z',
  sentAt: null,
  contactId: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  createdAt: '2025-01-01T12:00:00.000Z',
};

export const getEmail: EndpointDoc = {
  operationId: 'getEmail',
  summary: 'Get an email',
  parameters: [emailId],
  response: { description: 'The email.', shape: EmailRecord, example },
};

export const cancelEmail: EndpointDoc = {
  operationId: 'cancelEmail',
  summary: 'Cancel a scheduled email',
  description:
    'A `SCHEDULED` email becomes `CANCELLED` and its delivery workflow ends: nothing is sent. The cancel and ' +
    'the email\'s release at its time are one row update each on the same row, so exactly one of them happens: a ' +
    '200 here means the email is never sent, and an email already released (or in any other status) answers 409 ' +
    '`INVALID_STATE` with its status. A cancelled email does not count against the emails cap.',
  parameters: [emailId],
  response: { description: 'The cancelled email.', shape: EmailRecord, example: { ...example, status: 'CANCELLED' } },
  errors: {
    '409': errorResponse(409, 'INVALID_STATE', 'The email is not SCHEDULED; `error.details.status` says what it is', {
      message: 'A SENT email cannot be cancelled; only a SCHEDULED one can',
    }),
  },
};
