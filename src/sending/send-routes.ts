import { Router } from 'express';
import { parseSendRequest } from './send-request';
import type { SendService } from './send-service';

/** `POST /v1/send`: transactional email to one or many recipients. */
export function sendRouter(send: SendService): Router {
  const router = Router();
  router.post('/v1/send', async (req, res) => {
    const request = parseSendRequest(req.body);
    const emails = await send.send(req.project!.id, request);
    res.json({ success: true, data: { emails, timestamp: new Date().toISOString() } });
  });
  return router;
}
