import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { docsRouter } from '../../src/openapi/docs-routes';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

type Json = { [key: string]: unknown };

/** Every `$ref` value anywhere in `node`, with where it was found. */
function collectRefs(node: unknown, at = '#', found: { ref: string; at: string }[] = []) {
  if (Array.isArray(node)) node.forEach((item, index) => collectRefs(item, `${at}/${index}`, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push({ ref: value, at });
      else collectRefs(value, `${at}/${key}`, found);
    }
  }
  return found;
}

/** Follows a local JSON pointer (`#/a/b~1c`) through the document; undefined when it leads nowhere. */
function resolvePointer(document: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!node || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

describe('docsRouter', () => {
  let server: Server;
  let base: string;
  let document: Json;

  beforeAll(async () => {
    const app = express();
    app.use(docsRouter({ version: '9.9.9-test', publicUrl: 'https://herald.example.test' }));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const response = await fetch(`${base}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    document = (await response.json()) as Json;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const paths = () => document.paths as Record<string, Json>;
  const operations = () =>
    Object.entries(paths()).flatMap(([path, item]) =>
      METHODS.filter((method) => item[method]).map((method) => ({ path, method, item, operation: item[method] as Json })),
    );

  it('serves an OpenAPI 3.1 document with the given version and server', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: 'Herald API', version: '9.9.9-test' });
    expect((document.info as Json).description).toMatch(/Idempotency-Key/);
    expect(document.servers).toEqual([{ url: 'https://herald.example.test' }]);
  });

  it('gives every path at least one operation, and every operation a unique id, a summary and responses', () => {
    expect(Object.keys(paths()).length).toBeGreaterThan(0);
    for (const [path, item] of Object.entries(paths())) {
      expect([path, METHODS.some((method) => item[method])]).toEqual([path, true]);
    }
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect([where, typeof operation.summary]).toEqual([where, 'string']);
      expect([where, Object.keys((operation.responses as Json) ?? {}).length > 0]).toEqual([where, true]);
    }
  });

  it('declares every path template parameter', () => {
    for (const { path, item, operation } of operations()) {
      const declared = [...((item.parameters as Json[]) ?? []), ...((operation.parameters as Json[]) ?? [])]
        .map((parameter) => (parameter.$ref ? resolvePointer(document, parameter.$ref as string) : parameter) as Json)
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => parameter.name);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect([path, declared.sort()]).toEqual([path, templated.sort()]);
    }
  });

  it('resolves every $ref inside the document', () => {
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter(({ ref }) => resolvePointer(document, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('documents the foundation endpoints', () => {
    const documented = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /health',
        'GET /config',
        'GET /outbox',
        'POST /auth/signup',
        'POST /auth/login',
        'GET /auth/logout',
        'GET /auth/oauth-config',
        'POST /auth/verify-email',
        'POST /auth/request-verification',
        'POST /auth/request-password-reset',
        'POST /auth/reset-password',
        'GET /users/@me',
        'GET /users/@me/projects',
        'POST /users/@me/projects',
        'PATCH /users/@me/projects/{id}',
        'DELETE /users/@me/projects/{id}',
        'POST /users/@me/projects/{id}/regenerate-keys',
        'POST /users/@me/projects/{id}/reset',
        'GET /projects/{id}/setup-state',
        'GET /projects/{id}/members',
        'POST /projects/{id}/members',
        'PATCH /projects/{id}/members/{userId}',
        'DELETE /projects/{id}/members/{userId}',
      ]),
    );
  });

  it('describes the error envelope, both authentication schemes and the shared headers', () => {
    const components = document.components as Record<string, Json>;
    expect(components.schemas.ErrorResponse).toMatchObject({ required: ['success', 'error', 'timestamp'] });
    expect(components.schemas.BareError).toMatchObject({ required: ['error'] });
    expect(components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'herald_session' });
    expect(Object.keys(components.headers)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id']),
    );
    expect(components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
    const login = paths()['/auth/login'].post as Json;
    expect(login.security).toEqual([]);
    expect((paths()['/users/@me'].get as Json).security).toEqual([{ session: [] }]);
    expect(document.security).toEqual([{ apiKey: [] }]);
  });

  it('serves a reference page whose assets all load from this server', async () => {
    const response = await fetch(`${base}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    const html = await response.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset.startsWith('/')).toBe(true);
      const loaded = await fetch(`${base}${asset}`);
      expect([asset, loaded.status]).toEqual([asset, 200]);
      expect((await loaded.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const initializer = await (await fetch(`${base}/docs/init.js`)).text();
    expect(initializer).toContain('"/openapi.json"');
    expect(initializer).toContain('validatorUrl: null');
  });
});
