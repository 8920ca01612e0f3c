import express from 'express';
import type { DataSource } from 'typeorm';
import { listOutboxMessages, type OutboxQuery } from '../mailer/outbox';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

/** Reads `limit` (default 50, clamped to 200; like the API's other lists, a bad value means the default) and `to`. */
function parseQuery(query: Record<string, unknown>): OutboxQuery {
  const limit = Number(query.limit);
  const to = typeof query.to === 'string' && query.to.trim() !== '' ? query.to.trim() : undefined;
  return { limit: Number.isInteger(limit) && limit >= 1 ? Math.min(limit, MAX_LIMIT) : DEFAULT_LIMIT, to };
}

/** `GET /outbox`: the messages the outbox transport kept, newest first (development only, no auth). */
export function outboxRouter(deps: { dataSource: DataSource }): express.Router {
  const router = express.Router();
  router.get('/outbox', async (req, res) => {
    const messages = await listOutboxMessages(deps.dataSource, parseQuery(req.query));
    res.json({
      data: messages.map((m) => ({
        id: m.id,
        messageId: m.messageId,
        from: m.from,
        to: m.to,
        replyTo: m.replyTo,
        subject: m.subject,
        html: m.html,
        text: m.text,
        headers: m.headers,
        attachments: m.attachments,
        createdAt: m.createdAt.toISOString(),
      })),
    });
  });
  return router;
}
