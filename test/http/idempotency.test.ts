import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DataSource } from 'typeorm';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/data-source';
import { apiKeyAuth } from '../../src/http/middleware/api-key-auth';
import { errorHandler } from '../../src/http/middleware/error-handler';
import { idempotency } from '../../src/http/middleware/idempotency';
import { requestId } from '../../src/http/middleware/request-id';
import { validationError } from '../../src/http/errors';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

/**
 * The Idempotency-Key middleware in front of a handler that records each time it runs,
 * so the tests count performed requests in the database.
 */
describe('Idempotency-Key', () => {
  let api: TestApi;
  let dataSource: DataSource;
  let server: Server;
  let client: Client;
  let secretKey: string;
  let projectId: string;

  beforeAll(async () => {
    api = await startApi();
    const config = loadConfig(process.env);
    dataSource = await openDatabase(config.databaseUrl!, 10);
    await dataSource.query('CREATE TABLE IF NOT EXISTS test_performed (id serial PRIMARY KEY, project_id uuid, label text)');
    const app = express();
    app.use(requestId, express.json());
    app.post('/perform', apiKeyAuth(dataSource, 'secret'), idempotency(dataSource, 24), async (req, res) => {
      if (req.body.invalid) throw validationError([{ field: 'invalid', code: 'invalid', message: 'invalid' }]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await dataSource.query('INSERT INTO test_performed (project_id, label) VALUES ($1, $2)', [req.project!.id, req.body.label]);
      res.status(req.body.fail ? 500 : 200).json({ success: true });
    });
    app.use(errorHandler);
    server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    client = new Client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const { project } = await signupWithProject(api);
    secretKey = project.secretKey;
    projectId = project.id;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await dataSource.destroy();
    await api.close();
  });

  const performed = async (label: string) =>
    ((await dataSource.query('SELECT count(*)::int AS n FROM test_performed WHERE label = $1', [label])) as { n: number }[])[0].n;

  const send = (key: string, body: Record<string, unknown>) =>
    client.post('/perform', body, { key: secretKey, headers: { 'idempotency-key': key } });

  it('performs one of many concurrent requests with the same key; the rest get 409', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => send('concurrent-1', { label: 'concurrent' })));
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect(await performed('concurrent')).toBe(1);
  });

  it('answers a reuse with 409 IDEMPOTENCY_KEY_REUSED and the original request', async () => {
    expect((await send('reuse-1', { label: 'reuse' })).status).toBe(200);
    const reused = await send('reuse-1', { label: 'reuse' });
    expect(reused.status).toBe(409);
    expect(reused.body.error).toEqual(expect.objectContaining({
      code: 'IDEMPOTENCY_KEY_REUSED',
      details: {
        key: 'reuse-1',
        originalRequest: { method: 'POST', path: '/perform' },
        originalRequestAt: expect.any(String),
        originalStatusCode: 200,
      },
    }));
    expect(await performed('reuse')).toBe(1);
  });

  it('scopes keys to the project', async () => {
    const other = await signupWithProject(api);
    expect((await send('shared-key', { label: 'scoped' })).status).toBe(200);
    const answer = await client.post('/perform', { label: 'scoped' }, { key: other.project.secretKey, headers: { 'idempotency-key': 'shared-key' } });
    expect(answer.status).toBe(200);
    expect(await performed('scoped')).toBe(2);
  });

  it('does not use up a key on a refused (4xx) request, but does on a 5xx', async () => {
    expect((await send('refused-1', { label: 'refused', invalid: true })).status).toBe(422);
    expect((await send('refused-1', { label: 'refused' })).status).toBe(200);
    expect((await send('failed-1', { label: 'failed', fail: true })).status).toBe(500);
    expect((await send('failed-1', { label: 'failed' })).status).toBe(409);
    expect(await performed('refused')).toBe(1);
    expect(await performed('failed')).toBe(1);
  });

  it('refuses malformed keys with 422 and performs nothing', async () => {
    for (const key of ['x'.repeat(256), 'tab\tkey', 'ünïcode']) {
      const answer = await client.post('/perform', { label: 'malformed' }, { key: secretKey, headers: { 'idempotency-key': key } }).catch(() => undefined);
      if (answer) expect(answer.status).toBe(422);
    }
    const empty = await send('', { label: 'malformed' });
    expect(empty.status).toBe(422);
    expect(await performed('malformed')).toBe(0);
  });

  it('lets a key be used again after it expired', async () => {
    expect((await send('expiring-1', { label: 'expiring' })).status).toBe(200);
    await dataSource.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE project_id = $1 AND key = 'expiring-1'`, [projectId]);
    expect((await send('expiring-1', { label: 'expiring' })).status).toBe(200);
    expect(await performed('expiring')).toBe(2);
  });
});
