import type { Express, Request, Response } from 'express';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { logger } from '../logger';
import { projectBucket } from '../rate-limits/window-limiter';
import type { Endpoint, EndpointContext, MountDeps } from './endpoint';
import { assertStorable } from './json-body';
import { authenticateKey } from './middleware/api-key-auth';
import { logWhenClosed } from './middleware/access-log';
import { errorAnswer } from './middleware/error-handler';
import { countRequest } from './middleware/rate-limit';
import { requestIdFrom } from './middleware/request-id';
import { endpointBody } from './validate';

/**
 * A hot endpoint answered on Node's own request and response, ahead of Express: it takes a
 * request (true) or leaves it untouched for Express (false), whose route for the same endpoint
 * answers it the same way.
 */
export type LeanRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A JSON body's media type as the lean path reads it: UTF-8 JSON, nothing else. */
const JSON_TYPE = /^application\/json[ \t]*(;[ \t]*charset="?utf-8"?[ \t]*)?$/i;
/** What JSON.parse is given: an object or an array, as Express's strict JSON parser accepts. */
const OBJECT_OR_ARRAY = /^[\x20\x09\x0a\x0d]*[{[]/;

/**
 * Whether the lean path takes a request: the endpoint's exact method and path without a query,
 * a UTF-8 JSON body of a stated length within the limit, neither compressed nor chunked, and no
 * `Idempotency-Key` (replays are Express's). Everything else, malformed or merely unusual, is
 * Express's to answer, so the lean path never has to match its parsers' corner cases.
 */
function takes(method: string, path: string, bodyLimit: number, req: IncomingMessage): boolean {
  if (req.method !== method || req.url !== path) return false;
  const { headers } = req;
  if (headers['idempotency-key'] !== undefined || headers['content-encoding'] !== undefined || headers['transfer-encoding'] !== undefined) return false;
  if (!JSON_TYPE.test(headers['content-type'] ?? '')) return false;
  const length = Number(headers['content-length']);
  return Number.isInteger(length) && length > 0 && length <= bodyLimit;
}

/** Errors the error answer maps as it maps those of Express's parsers: 400 "Malformed JSON", and a 400 for a body the client stopped sending. */
const malformed = () => Object.assign(new SyntaxError('malformed JSON body'), { type: 'entity.parse.failed', status: 400 });
const aborted = () => Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400 });

/** Reads the body and parses it as Express's JSON parser does (a leading byte-order mark dropped, nothing else read as `{}`, objects and arrays only). */
function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => reject(aborted()));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
      if (text === '') return resolve({});
      if (!OBJECT_OR_ARRAY.test(text)) return reject(malformed());
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(malformed());
      }
    });
  });
}

/** Answers JSON, or nothing for an undefined body, as the Express route does; to a client already gone, only records the status (for the access log). */
function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  res.statusCode = status;
  if (res.destroyed) return;
  if (body === undefined) {
    res.end();
    return;
  }
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

/**
 * The lean route of a key-authenticated JSON endpoint marked `lean`: the same steps as its
 * Express route (request id and access log, key, per-project rate limit, body read after the
 * key is accepted, storable text, the endpoint's DTOs, its handler, the error envelope), without
 * Express's per-request work. Its handler is given Node's request and response, so a `lean`
 * endpoint's handler reads neither.
 */
export function leanEndpoint(route: Endpoint<any, any>, deps: MountDeps, bodyLimit: number): LeanRoute {
  if (route.bodyLimit !== undefined || (route.credential !== 'key' && route.credential !== 'secret') || route.bodyKind || route.before || route.precheck || route.query || !route.body) {
    throw new Error(`${route.method} ${route.path} cannot be lean: it must take a key and a JSON body within the default limit, with no query and no before or precheck step`);
  }
  const { dataSource, projectLimiter, services, cursors, config } = deps;
  const status = route.doc.response.status ?? 200;
  const method = route.method.toUpperCase();
  const Body = route.body;

  const answer = async (req: IncomingMessage, res: ServerResponse, requestId: string) => {
    try {
      const project = await authenticateKey(dataSource, req.headers.authorization, route.credential === 'key' ? 'any' : 'secret');
      await countRequest(projectLimiter, projectBucket(project.id), res);
      const raw = await readJson(req);
      assertStorable(raw);
      const context: EndpointContext<unknown, unknown> = {
        req: req as Request,
        res: res as Response,
        body: endpointBody({ body: Body, quickBody: route.quickBody }, raw),
        query: undefined,
        params: {},
        project,
        user: undefined as never,
        role: undefined as never,
        services,
        cursors,
        config,
      };
      send(res, status, await route.handle(context));
    } catch (err) {
      const failed = errorAnswer(err, requestId, logger.child({ reqId: requestId }));
      if (!res.headersSent) for (const [name, value] of Object.entries(failed.headers)) res.setHeader(name, value);
      send(res, failed.status, failed.body);
    }
  };

  return (req, res) => {
    if (!takes(method, route.path, bodyLimit, req)) return false;
    const requestId = requestIdFrom(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    logWhenClosed(requestId, req.method!, req.url!, res);
    void answer(req, res, requestId);
    return true;
  };
}

const leanRoutes = new WeakMap<Express, LeanRoute[]>();

/** Puts lean routes ahead of an app's own, for the servers requestListener makes. */
export function addLeanRoutes(app: Express, routes: LeanRoute[]): void {
  leanRoutes.set(app, [...(leanRoutes.get(app) ?? []), ...routes]);
}

/** The HTTP server's request listener: the app's lean routes first, then the app. */
export function requestListener(app: Express): RequestListener {
  const routes = leanRoutes.get(app) ?? [];
  if (routes.length === 0) return app;
  return (req, res) => {
    for (const route of routes) if (route(req, res)) return;
    app(req, res);
  };
}
