import type { Express, Request, RequestHandler } from 'express';
import type { ServerResponse } from 'node:http';
import { logger, type Logger } from '../../logger';

/** Query parameters whose values never reach the log (one-time codes and secrets in links). */
const SECRET_PARAMS = /([?&](?:secret|code|state)=)[^&]*/g;

const LOG = Symbol('requestLogger');

/**
 * The access log: one JSON line per request once it ended (`request completed`, or
 * `request aborted` when the client left first; a 5xx is logged as an error), with the
 * request id, method, path, status and response time in milliseconds. It costs one log call
 * per request, so the API's hot paths keep it. `req.log` is the logger bound to the request
 * id, made on first use (most requests never log anything else).
 */
export function accessLog(app: Express): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [LOG]?: Logger }) {
      return (this[LOG] ??= logger.child({ reqId: this.id }));
    },
  });
  return (req, res, next) => {
    logWhenClosed(req.id, req.method, req.originalUrl, res);
    next();
  };
}

/** Writes the access log line of a request (its id, method and URL as received) once its response closes. */
export function logWhenClosed(reqId: string, method: string, url: string, res: ServerResponse): void {
  const started = performance.now();
  res.once('close', () => logAnswer(reqId, method, url, res, started));
}

function logAnswer(reqId: string, method: string, url: string, res: ServerResponse, started: number): void {
  const line = {
    reqId,
    req: { method, url: url.replace(SECRET_PARAMS, '$1[redacted]') },
    res: { statusCode: res.statusCode },
    responseTime: Math.round(performance.now() - started),
  };
  if (!res.writableFinished) logger.info(line, 'request aborted');
  else if (res.statusCode >= 500) logger.error(line, 'request errored');
  else logger.info(line, 'request completed');
}
