import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { accessLog } from '../../src/http/middleware/access-log';
import { errorHandler } from '../../src/http/middleware/error-handler';
import { requestId } from '../../src/http/middleware/request-id';
import { logger } from '../../src/logger';

describe('the access log', () => {
  let server: Server;
  let url: string;
  let bindings: Record<string, unknown> | undefined;

  beforeAll(async () => {
    const app = express();
    app.use(requestId);
    app.use(accessLog(app));
    app.get('/ok', (req, res) => {
      bindings = req.log.bindings();
      res.json({ ok: true });
    });
    app.get('/broken', () => {
      throw new Error('boom');
    });
    app.get('/missing', (_req, res) => void res.status(404).json({ missing: true }));
    app.use(errorHandler);
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  afterEach(() => jest.restoreAllMocks());

  /** Calls a path and answers its status, its request id and every access-log line written for it. */
  async function call(path: string) {
    const info = jest.spyOn(logger, 'info');
    const error = jest.spyOn(logger, 'error');
    const response = await fetch(url + path);
    await response.text();
    const id = response.headers.get('x-request-id');
    // The line is written when the response closes, just after the client has read it.
    for (let i = 0; i < 50 && ![...info.mock.calls, ...error.mock.calls].some(([line]) => (line as { reqId?: string })?.reqId === id); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const lines = (calls: unknown[][], level: string) =>
      calls.filter(([line]) => (line as { reqId?: string })?.reqId === id).map(([line, message]) => ({ level, line, message }));
    return { status: response.status, id, lines: [...lines(info.mock.calls, 'info'), ...lines(error.mock.calls, 'error')] };
  }

  it('writes one line per request with its id, method, path, status and time, and never a secret in the query', async () => {
    const { status, id, lines } = await call('/ok?code=123456&page=2&secret=abc');
    expect(status).toBe(200);
    expect(lines).toEqual([
      {
        level: 'info',
        message: 'request completed',
        line: { reqId: id, req: { method: 'GET', url: '/ok?code=[redacted]&page=2&secret=[redacted]' }, res: { statusCode: 200 }, responseTime: expect.any(Number) },
      },
    ]);
    expect(bindings).toMatchObject({ reqId: id });
  });

  it('logs a 4xx as completed and a 5xx as an error', async () => {
    const missing = await call('/missing');
    expect(missing.lines.map(({ level, message, line }) => [level, message, (line as { res: { statusCode: number } }).res.statusCode])).toEqual([
      ['info', 'request completed', 404],
    ]);
    const broken = await call('/broken');
    expect(broken.status).toBe(500);
    expect(broken.lines.filter(({ message }) => message !== 'request failed').map(({ level, message }) => [level, message])).toEqual([
      ['error', 'request errored'],
    ]);
  });
});
