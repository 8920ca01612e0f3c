import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

const incoming = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (a sane incoming `X-Request-Id` is kept) and echoes it. */
export const requestId: RequestHandler = (req, res, next) => {
  const header = req.header('x-request-id');
  req.id = header && incoming.test(header) ? header : randomUUID();
  res.setHeader('X-Request-Id', req.id);
  next();
};
