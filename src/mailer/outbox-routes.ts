import express from 'express';
import type { DataSource } from 'typeorm';
import { sessionAuth } from '../http/middleware/session-auth';
import { intParam, textParam } from '../http/query';
import { listOutboxMessages } from './outbox';

/**
 * `GET /outbox` (session): the messages the outbox transport kept, newest first, limited to
 * the signed-in user's projects and address. `limit` defaults to 50 and is clamped to 1..200.
 */
export function outboxRouter(deps: { dataSource: DataSource }): express.Router {
  const router = express.Router();
  router.get('/outbox', sessionAuth(deps.dataSource), async (req, res) => {
    const user = req.user!;
    const query = { limit: intParam(req.query, 'limit', { fallback: 50, min: 1, max: 200, clamp: true }), to: textParam(req.query, 'to') || undefined };
    const messages = await listOutboxMessages(deps.dataSource, { userId: user.id, email: user.email, emailVerified: user.emailVerified }, query);
    res.json({
      data: messages.map((m) => ({
        id: m.id,
        projectId: m.projectId,
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
