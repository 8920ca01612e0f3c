import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { DataSource } from 'typeorm';
import { createApp } from '../../src/app';
import { composeCore } from '../../src/composition';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { logger } from '../../src/logger';
import { listen } from '../../src/runtime/http-server';
import { endpoint } from '../../src/http/endpoint';
import { leanEndpoint } from '../../src/http/lean-endpoint';
import { BODY_LIMIT } from '../../src/http/mount';
import { TrackRequest } from '../../src/events/events-dtos';
import { WindowLimiter } from '../../src/rate-limits/window-limiter';
import { signupWithProject } from '../support/api';
import { withinOneMinute } from '../support/wait';

/** One raw request to POST /v1/track. */
interface RawRequest {
  body: string;
  headers?: Record<string, string>;
  key?: 'public' | 'secret' | 'none' | 'wrong';
}

interface Keys {
  id: string;
  publicKey: string;
  secretKey: string;
}

/** What is compared between the two paths: the status, the body without per-request values, and the headers clients read. */
interface Seen {
  status: number;
  body: unknown;
  headers: Record<string, string | null>;
  /** Express adds a weak ETag to every JSON answer; the lean path adds none. */
  etag: boolean;
}

const RATE_LIMIT = 40;

/** Ids, times and request ids differ between two runs of the same request; everything else must not. */
function normalised(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalised);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, ['contact', 'event', 'timestamp', 'requestId'].includes(key) ? typeof item : normalised(item)]),
    );
  }
  return value;
}

/**
 * POST /v1/track is answered ahead of Express when its request is plain (src/http/lean-endpoint.ts).
 * Every request here is sent both to a server with the lean route and to one with Express alone,
 * built from the same app, and both must answer the same (the lean path is told apart by the
 * missing ETag) and store the same.
 */
describe('the lean route of POST /v1/track', () => {
  let dataSource: DataSource;
  let lean: { server: Server; close: () => Promise<void> };
  let expressOnly: Server;
  let leanUrl: string;
  let expressUrl: string;

  beforeAll(async () => {
    const config = loadConfig({ ...process.env, RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) });
    logger.level = config.logLevel;
    dataSource = await openDatabase(config.databaseUrl!, 4);
    const app = createApp(composeCore(config, dataSource, undefined));
    lean = await listen(app, 0, '127.0.0.1');
    expressOnly = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    leanUrl = `http://127.0.0.1:${(lean.server.address() as AddressInfo).port}`;
    expressUrl = `http://127.0.0.1:${(expressOnly.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    expressOnly.closeAllConnections();
    await new Promise((resolve) => expressOnly.close(resolve));
    lean.server.closeAllConnections();
    await lean.close();
    await dataSource.destroy();
  });

  async function project(): Promise<Keys> {
    const { project } = await signupWithProject({ url: leanUrl });
    return project as Keys;
  }

  async function send(url: string, keys: Keys, request: RawRequest): Promise<Seen> {
    const key = { public: keys.publicKey, secret: keys.secretKey, none: undefined, wrong: 'pk_' + 'x'.repeat(40) }[request.key ?? 'public'];
    const answer = await fetch(`${url}/v1/track`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...request.headers },
      body: request.body,
    });
    const text = await answer.text();
    const headers = Object.fromEntries(
      ['content-type', 'x-request-id', 'ratelimit-limit', 'retry-after'].map((name) => [name, answer.headers.get(name)]),
    );
    if (headers['x-request-id'] !== request.headers?.['x-request-id']) headers['x-request-id'] = 'generated';
    return { status: answer.status, body: text ? normalised(JSON.parse(text)) : text, headers, etag: answer.headers.has('etag') };
  }

  const events = async (projectId: string) =>
    (await dataSource.query('SELECT count(*)::int AS n FROM events WHERE project_id = $1', [projectId]))[0].n as number;

  /** Sends a request to both paths (each its own project) and answers what each saw. */
  async function both(request: RawRequest, setUp?: (keys: Keys) => Promise<void>) {
    const leanKeys = await project();
    const expressKeys = await project();
    await setUp?.(leanKeys);
    await setUp?.(expressKeys);
    const leanSeen = await send(leanUrl, leanKeys, request);
    const expressSeen = await send(expressUrl, expressKeys, request);
    return { leanSeen, expressSeen, leanEvents: await events(leanKeys.id), expressEvents: await events(expressKeys.id) };
  }

  const track = { email: 'Ada@Example.com', event: 'signed_up', data: { plan: 'pro' } };

  it.each<[string, RawRequest, number]>([
    ['a plain event with the public key', { body: JSON.stringify(track) }, 200],
    ['a plain event with the secret key', { body: JSON.stringify(track), key: 'secret' }, 200],
    ['a body behind a byte-order mark and whitespace', { body: '\uFEFF \n' + JSON.stringify(track) }, 200],
    ['a body of a byte-order mark alone', { body: '\uFEFF' }, 422],
    ['a body of whitespace alone', { body: ' \n' }, 400],
    ['a stated UTF-8 charset and a sane request id', { body: JSON.stringify(track), headers: { 'content-type': 'application/json; charset=UTF-8', 'x-request-id': 'req-42' } }, 200],
    ['no key', { body: JSON.stringify(track), key: 'none' }, 401],
    ['an unknown key', { body: JSON.stringify(track), key: 'wrong' }, 401],
    ['malformed JSON', { body: '{"email": "a@example.com", ' }, 400],
    ['a JSON string', { body: '"signed_up"' }, 400],
    ['a JSON array', { body: '[1, 2]' }, 422],
    ['a bad email', { body: JSON.stringify({ ...track, email: 'not-an-email' }) }, 422],
    ['no event', { body: JSON.stringify({ email: 'a@example.com' }) }, 422],
    ['a lone surrogate', { body: '{"email": "a@example.com", "event": "x\\ud800"}' }, 422],
    ['a NUL character in data', { body: '{"email": "a@example.com", "event": "x", "data": {"k": "\\u0000"}}' }, 422],
    ['an insane request id', { body: JSON.stringify(track), headers: { 'x-request-id': 'a b' } }, 200],
  ])('answers %s as Express does', async (_name, request, status) => {
    const { leanSeen, expressSeen, leanEvents, expressEvents } = await both(request);
    expect(leanSeen.status).toBe(status);
    expect({ ...leanSeen, etag: undefined }).toEqual({ ...expressSeen, etag: undefined });
    expect([leanSeen.etag, expressSeen.etag]).toEqual([false, true]);
    expect(leanEvents).toBe(status === 200 ? 1 : 0);
    expect(expressEvents).toBe(leanEvents);
  });

  it('answers a disabled project 403 as Express does', async () => {
    const disable = (keys: Keys) => dataSource.query('UPDATE projects SET disabled = true WHERE id = $1', [keys.id]).then(() => undefined);
    const { leanSeen, expressSeen, leanEvents } = await both({ body: JSON.stringify(track) }, disable);
    expect(leanSeen.status).toBe(403);
    expect({ ...leanSeen, etag: undefined }).toEqual({ ...expressSeen, etag: undefined });
    expect(leanSeen.etag).toBe(false);
    expect(leanEvents).toBe(0);
  });

  it('counts against the same per-project limit as Express, and answers 429 as Express does', async () => {
    const keys = await project();
    // Limits are counted per clock minute: all requests must fall into one.
    await withinOneMinute(10);
    const answers: Seen[] = [];
    for (let i = 0; i < RATE_LIMIT + 5; i += 1) {
      // Alternating paths: one budget for both.
      answers.push(await send(i % 2 === 0 ? leanUrl : expressUrl, keys, { body: JSON.stringify({ ...track, email: `c${i}@example.com` }) }));
    }
    expect(answers.slice(0, RATE_LIMIT).every((seen) => seen.status === 200)).toBe(true);
    const refused = answers.slice(RATE_LIMIT);
    expect(refused.map((seen) => seen.status)).toEqual([429, 429, 429, 429, 429]);
    const [leanRefusal, expressRefusal] = [refused[refused.findIndex((seen) => !seen.etag)], refused[refused.findIndex((seen) => seen.etag)]];
    // The seconds left in the minute may differ between the two answers when a second passed between them:
    // each answer's suggestion names its own Retry-After, and the rest is the same.
    const withoutSeconds = (seen: Seen) => {
      const error = (seen.body as { error: { suggestion: string } }).error;
      expect(seen.headers['retry-after']).toMatch(/^\d+$/);
      expect(error.suggestion).toBe(`Wait ${seen.headers['retry-after']} seconds before sending more requests.`);
      return { ...seen, etag: undefined, headers: { ...seen.headers, 'retry-after': 'n' }, body: { ...(seen.body as object), error: { ...error, suggestion: 'n' } } };
    };
    expect(withoutSeconds(leanRefusal)).toEqual(withoutSeconds(expressRefusal));
    expect(await events(keys.id)).toBe(RATE_LIMIT);
  });

  it.each<[string, Record<string, string>]>([
    ['an Idempotency-Key', { 'idempotency-key': 'once-1' }],
    ['another charset', { 'content-type': 'application/json; charset=utf-16' }],
    ['another media type', { 'content-type': 'text/plain' }],
    ['a media type with a trailing no-break space', { 'content-type': 'application/json\u00a0' }],
  ])('leaves a request with %s to Express', async (_name, headers) => {
    const keys = await project();
    const seen = await send(leanUrl, keys, { body: JSON.stringify(track), headers });
    expect(seen.etag).toBe(true);
  });

  it('leaves a path with a query string, or another spelling of the path, to Express', async () => {
    const keys = await project();
    for (const path of ['/v1/track?x=1', '/v1/track/', '/V1/track']) {
      const answer = await fetch(`${leanUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.publicKey}` },
        body: JSON.stringify(track),
      });
      expect(answer.status).toBe(200);
      expect(answer.headers.has('etag')).toBe(true);
    }
    expect(await events(keys.id)).toBe(3);
  });

  it('answers a handler that returns nothing with its status and no body, as the Express route does', async () => {
    const keys = await project();
    const config = loadConfig(process.env);
    const route = endpoint<TrackRequest>({
      method: 'post',
      path: '/quiet',
      credential: 'key',
      body: TrackRequest,
      lean: true,
      doc: { operationId: 'quiet', summary: 'quiet', response: { status: 204 } } as never,
      handle: () => undefined,
    });
    const deps = { config, dataSource, services: {} as never, cursors: {} as never, projectLimiter: new WindowLimiter(dataSource, 100) };
    const quiet = leanEndpoint(route, deps, BODY_LIMIT);
    const server = createServer((req, res) => {
      if (!quiet(req, res)) res.writeHead(418).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/quiet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.secretKey}` },
        body: JSON.stringify(track),
      });
      expect(answer.status).toBe(204);
      expect(answer.headers.get('content-type')).toBeNull();
      expect(await answer.text()).toBe('');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers a body over the limit from Express, 413, storing nothing', async () => {
    const keys = await project();
    const seen = await send(leanUrl, keys, { body: JSON.stringify({ ...track, data: { big: 'x'.repeat(1024 * 1024) } }) });
    expect({ status: seen.status, etag: seen.etag }).toEqual({ status: 413, etag: true });
    expect(await events(keys.id)).toBe(0);
  });
});
