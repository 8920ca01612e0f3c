import { createHash, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { endpoint, type RouteTable } from '../http/endpoint';
import { unauthorized } from '../http/errors';
import { jsonBody } from '../http/json-body';
import { BODY_LIMIT } from '../http/mount';
import { readBody } from '../http/read-body';
import { MailEventResult, MailEventsQuery } from './mail-events-dtos';
import * as docs from './mail-events-docs';
import { parseSnsMessage } from './sns-message';

/** SNS posts its JSON as text/plain; application/json is read as well. */
const readers = [express.text({ type: 'text/plain', limit: BODY_LIMIT }), ...jsonBody(BODY_LIMIT)];

/** Compares two secrets in constant time, whatever their lengths. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * `POST /webhooks/mail-events`: Amazon SNS messages carrying SES events. No key: the `secret`
 * query parameter authenticates, checked before the body is read (401, nothing recorded).
 */
export const mailEventsRoutes: RouteTable = {
  tag: docs.tag,
  schemas: docs.schemas,
  shapes: [MailEventResult],
  endpoints: [
    endpoint<undefined, MailEventsQuery>({
      method: 'post',
      path: '/webhooks/mail-events',
      credential: 'none',
      query: MailEventsQuery,
      bodyKind: 'own',
      doc: docs.receiveMailEvents,
      handle: async ({ req, res, query, services, config }) => {
        if (typeof query.secret !== 'string' || !sameSecret(query.secret, config.mailEventsSecret)) {
          throw unauthorized('The mail events secret is missing or wrong');
        }
        await readBody(req, res, readers);
        const result = await services.mailEvents.receive(parseSnsMessage(req.body));
        req.log.info({ outcome: result.outcome, ...(result.outcome === 'applied' ? { change: result.change } : {}) }, 'mail event received');
        return { success: true, outcome: result.outcome };
      },
    }),
  ],
};
