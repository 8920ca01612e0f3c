import { endpoint, type RouteTable } from '../http/endpoint';
import { SendBatchResult, SendResult } from './send-dtos';
import * as docs from './send-docs';
import { parseSendBatch, parseSendRequest } from './send-request';

/** `POST /v1/send` and `POST /v1/send/batch`: transactional email; bodies up to 40 MB (attachments). */
export const sendRoutes: RouteTable = {
  tag: docs.tag,
  schemas: docs.schemas,
  shapes: [SendResult, SendBatchResult],
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
    endpoint({
      method: 'post',
      path: '/v1/send/batch',
      credential: 'secret',
      bodyLimit: '40mb',
      doc: docs.sendBatch,
      // An array of /v1/send bodies, each read by parseSendRequest: see `schemas` in send-docs.ts.
      handle: async ({ services, project, req }) => {
        const sent = await services.send.sendBatch(project.id, parseSendBatch(req.body));
        return { success: true, data: sent.map((emails) => ({ emails })), timestamp: new Date().toISOString() };
      },
    }),
  ],
};
