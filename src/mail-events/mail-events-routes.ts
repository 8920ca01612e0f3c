import { createHash, timingSafeEqual } from 'node:crypto';
import express, { Router, type RequestHandler } from 'express';
import { unauthorized } from '../http/errors';
import { jsonBody } from '../http/json-body';
import type { MailEventsService } from './mail-events-service';
import { parseSnsMessage } from './sns-message';

const BODY_LIMIT = '1mb';

/** Compares two secrets in constant time, whatever their lengths. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Requires `?secret=<MAIL_EVENTS_SECRET>` (401 before anything is read or recorded). */
function requireSecret(secret: string): RequestHandler {
  return (req, _res, next) => {
    const given = req.query.secret;
    if (typeof given !== 'string' || !sameSecret(given, secret)) throw unauthorized('The mail events secret is missing or wrong');
    next();
  };
}

/** `POST /webhooks/mail-events`: Amazon SNS messages carrying SES events (JSON, or JSON sent as text/plain). */
export function mailEventsRouter(mailEvents: MailEventsService, secret: string): Router {
  const router = Router();
  router.post('/webhooks/mail-events', requireSecret(secret), express.text({ type: 'text/plain', limit: BODY_LIMIT }), ...jsonBody(BODY_LIMIT), async (req, res) => {
    const result = await mailEvents.receive(parseSnsMessage(req.body));
    req.log.info({ outcome: result.outcome, ...(result.outcome === 'applied' ? { change: result.change } : {}) }, 'mail event received');
    res.json({ success: true, outcome: result.outcome });
  });
  return router;
}
