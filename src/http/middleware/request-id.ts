import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const incoming = /^[A-Za-z0-9._:-]{1,128}$/;

/** A request's id: a sane incoming `X-Request-Id`, else a new one. */
export const requestIdFrom = (header: string | string[] | undefined): string =>
  typeof header === 'string' && incoming.test(header) ? header : randomUUID();

/** Gives every request an id (requestIdFrom) and echoes it. */
export const requestId: RequestHandler = (req, res, next) => {
  req.id = requestIdFrom(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', req.id);
  next();
};
