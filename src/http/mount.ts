import express, { type Express, type RequestHandler } from 'express';
import type { Credential, Endpoint, EndpointContext, MountDeps, RouteTable } from './endpoint';
import { jsonBody } from './json-body';
import { addLeanRoutes, leanEndpoint, type LeanRoute } from './lean-endpoint';
import { apiKeyAuth } from './middleware/api-key-auth';
import { idempotency } from './middleware/idempotency';
import { rateLimit } from './middleware/rate-limit';
import { sessionAuth } from './middleware/session-auth';
import { endpointBody, parseQuery } from './validate';

/** The largest JSON body an endpoint reads unless it states its own limit: 1 MiB, in bytes. */
export const BODY_LIMIT = 1024 * 1024;

/** `/templates/{id}` as Express writes it: `/templates/:id`. */
export const expressPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * Authentication for each credential: a key (then the per-project rate limit and Idempotency-Key),
 * a session, or nothing. Built once per app, so every keyed endpoint counts against one limiter
 * and `RateLimit-Remaining` falls by one per request whichever endpoint it calls.
 */
function authentications(deps: MountDeps): Record<Credential, RequestHandler[]> {
  const { dataSource, config } = deps;
  const perProject = [rateLimit(deps.projectLimiter), idempotency(dataSource, config.idempotencyTtlHours)];
  const session = [sessionAuth(dataSource)];
  return {
    secret: [apiKeyAuth(dataSource, 'secret'), ...perProject],
    key: [apiKeyAuth(dataSource, 'any'), ...perProject],
    session,
    member: session,
    none: [],
  };
}

/** The body reader: JSON (after authentication, so a refused request's body is never read), raw bytes, or none. */
function bodyReader(route: Endpoint): RequestHandler[] {
  const limit = route.bodyLimit ?? BODY_LIMIT;
  if (route.bodyKind === 'own') return [];
  if (route.bodyKind === 'raw') return [express.raw({ type: '*/*', limit })];
  return jsonBody(limit);
}

/** Validates the body and query with the endpoint's DTOs, runs its handler and sends what it returns. */
function handler(route: Endpoint, deps: MountDeps): RequestHandler {
  const status = route.doc.response.status ?? 200;
  return async (req, res) => {
    const params = req.params as Record<string, string>;
    const context: EndpointContext<unknown, unknown> = {
      req,
      res,
      body: req.body,
      query: req.query,
      params,
      project: req.project!,
      user: req.user!,
      role: route.credential === 'member' ? await deps.services.members.role(params.id, req.user!.id) : (undefined as never),
      services: deps.services,
      cursors: deps.cursors,
      config: deps.config,
    };
    await route.before?.(context);
    route.precheck?.(req.body);
    if (route.body) context.body = endpointBody({ body: route.body, quickBody: route.quickBody }, req.body);
    if (route.query) context.query = parseQuery(route.query, req.query);
    const result = await route.handle(context);
    if (res.headersSent) return;
    if (result === undefined) res.status(status).end();
    else res.status(status).json(result);
  };
}

/**
 * Mounts every endpoint of the route tables, each behind the credential it states; a `lean`
 * endpoint is also answered ahead of Express (leanEndpoint) when its request is plain.
 */
export function mountRoutes(app: Express, tables: RouteTable[], deps: MountDeps): void {
  const authentication = authentications(deps);
  const lean: LeanRoute[] = [];
  for (const table of tables) {
    for (const route of table.endpoints) {
      app[route.method](expressPath(route.path), ...authentication[route.credential], ...bodyReader(route), handler(route, deps));
      if (route.lean) lean.push(leanEndpoint(route, deps, BODY_LIMIT));
    }
  }
  addLeanRoutes(app, lean);
}
