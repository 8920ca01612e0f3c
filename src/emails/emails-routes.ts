import { endpoint, type RouteTable } from '../http/endpoint';
import { uuidPathId } from '../http/validate';
import { EmailRecord } from './emails-dtos';
import * as docs from './emails-docs';

const emailId = (id: string) => uuidPathId(id, 'Email');

/** Emails (`/emails/{id}`): one email record, and the cancel of a scheduled one. */
export const emailsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [EmailRecord],
  endpoints: [
    endpoint({
      method: 'get',
      path: '/emails/{id}',
      credential: 'secret',
      doc: docs.getEmail,
      handle: ({ services, project, params }) => services.emails.get(project.id, emailId(params.id)),
    }),
    endpoint({
      method: 'post',
      path: '/emails/{id}/cancel',
      credential: 'secret',
      doc: docs.cancelEmail,
      handle: ({ services, project, params }) => services.emails.cancel(project.id, emailId(params.id)),
    }),
  ],
};
