import { IsBoolean, IsEmail, IsNotEmpty, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { Router, type Request, type Response } from 'express';
import { eventView, type EventCursor, type EventsService } from './events-service';
import { notFound } from '../http/errors';
import type { Cursors } from '../http/cursors';
import { cursorPage, cursorParams } from '../http/pagination';
import { isUuid, parseBody } from '../http/validate';

class TrackBody {
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(320) email: string;
  @IsString() @IsNotEmpty() @MaxLength(255) event: string;
  @IsOptional() @IsObject() data?: Record<string, unknown>;
  @IsOptional() @IsBoolean() subscribed?: boolean;
}

/** `POST /v1/track` and its dashboard alias `POST /events/track`: the same handler. */
export function trackHandler(events: EventsService) {
  return async (req: Request, res: Response) => {
    const body = parseBody(TrackBody, req.body);
    const tracked = await events.track(req.project!.id, body);
    res.json({ success: true, data: tracked });
  };
}

/** Reading and deleting events (`/events/*`). */
export function eventsRouter(events: EventsService, cursors: Cursors): Router {
  const router = Router();
  const eventCursors = cursors.for<EventCursor>('events');

  router.post('/events/track', trackHandler(events));

  router.get('/events', async (req, res) => {
    const query = req.query as Record<string, string | undefined>;
    const page = cursorParams(query, eventCursors);
    if (query.contactId !== undefined && !isUuid(query.contactId)) {
      res.json({ data: [], cursor: null, hasMore: false, total: 0 });
      return;
    }
    const { rows, countTotal } = await events.list(req.project!.id, { name: query.name, contactId: query.contactId }, page);
    const result = await cursorPage(rows, page, (row) => ({ v: row.sortValue, id: row.event.id }), countTotal);
    res.json({ ...result, data: result.data.map((row) => eventView(row.event)) });
  });

  router.get('/events/stats', async (req, res) => {
    res.json(await events.stats(req.project!.id));
  });

  router.get('/events/names', async (req, res) => {
    res.json(await events.names(req.project!.id));
  });

  router.get('/events/contact/:contactId', async (req, res) => {
    if (!isUuid(req.params.contactId)) throw notFound('Contact');
    const page = cursorParams(req.query, eventCursors);
    const { rows, countTotal } = await events.forContact(req.project!.id, req.params.contactId, page);
    const result = await cursorPage(rows, page, (row) => ({ v: row.sortValue, id: row.event.id }), countTotal);
    res.json({ ...result, data: result.data.map((row) => eventView(row.event)) });
  });

  router.get('/events/:eventName/usage', async (req, res) => {
    res.json(await events.usage(req.project!.id, req.params.eventName));
  });

  router.delete('/events/:eventName', async (req, res) => {
    res.json(await events.deleteByName(req.project!.id, req.params.eventName));
  });

  return router;
}
