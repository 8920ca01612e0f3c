import { endpoint, type RouteTable } from '../http/endpoint';
import { SendResult } from './send-dtos';
import * as docs from './send-docs';
import { parseSendRequest } from './send-request';

/** `POST /v1/send`: transactional email to one or many recipients; bodies up to 40 MB (attachments). */
export const sendRoutes: RouteTable = {
  tag: docs.tag,
  schemas: docs.schemas,
  shapes: [SendResult],
  endpoints: [
    endpoint({
      method: 'post',
      path: '/v1/send',
      credential: 'secret',
      bodyLimit: '40mb',
      doc: docs.send,
      // The body is validated by parseSendRequest, not a DTO: see `schemas` in send-docs.ts.
      handle: async ({ services, project, req }) => ({
        success: true,
        data: { emails: await services.send.send(project.id, parseSendRequest(req.body)), timestamp: new Date().toISOString() },
      }),
    }),
  ],
};
