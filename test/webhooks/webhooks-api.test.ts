import { emitWebhookEvents } from '../../src/webhooks/webhook-events';
import { Client, signupWithProject, startApi, type TestApi } from '../support/api';

describe('/webhooks', () => {
  let api: TestApi;
  let client: Client;
  let key: string;
  let projectId: string;

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    client = new Client(api.url);
  });
  beforeEach(async () => {
    const { project } = await signupWithProject(api);
    key = project.secretKey;
    projectId = project.id;
  });
  afterAll(() => api?.close());

  const create = (body: unknown, withKey = key) => client.post('/webhooks', body, { key: withKey });
  const endpointRows = async (): Promise<number> =>
    (await api.dataSource.query('SELECT count(*)::int AS n FROM webhook_endpoints WHERE project_id = $1', [projectId]))[0].n;

  it('creates an endpoint, showing its secret on creation only', async () => {
    const created = await create({ url: 'https://hooks.example.com/herald', events: ['email.delivered', 'contact.created', 'email.delivered'], description: 'CRM' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: 'https://hooks.example.com/herald',
      events: ['email.delivered', 'contact.created'],
      description: 'CRM',
      enabled: true,
      failingSince: null,
      disabledReason: null,
    });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

    const one = await client.get(`/webhooks/${created.body.id}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).not.toHaveProperty('secret');
    expect(one.body).toEqual({ ...created.body, secret: undefined, createdAt: created.body.createdAt, updatedAt: created.body.updatedAt });
    const list = await client.get('/webhooks', { key });
    expect(list.body.map((row: { id: string }) => row.id)).toEqual([created.body.id]);
    expect(list.body[0]).not.toHaveProperty('secret');
  });

  it('changes url, events, description and enabled; enabling again forgets the failures', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    await api.dataSource.query(
      `UPDATE webhook_endpoints SET enabled = false, failing_since = now() - interval '6 days', disabled_reason = 'Every delivery failed for 5 days', disabled_at = now() WHERE id = $1`,
      [hook.id],
    );
    const patched = await client.patch(`/webhooks/${hook.id}`, { url: 'https://hooks.example.com/b', events: ['segment.vip.entry', 'segment.vip.exit'], description: null, enabled: true }, { key });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      url: 'https://hooks.example.com/b',
      events: ['segment.vip.entry', 'segment.vip.exit'],
      description: null,
      enabled: true,
      failingSince: null,
      disabledReason: null,
      disabledAt: null,
    });
    expect(patched.body).not.toHaveProperty('secret');

    const disabled = await client.patch(`/webhooks/${hook.id}`, { enabled: false }, { key });
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'Disabled through the API', url: 'https://hooks.example.com/b' });
    expect(disabled.body.disabledAt).toEqual(expect.any(String));
  });

  it('rotates the secret, shown in that answer only', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    const rotated = await client.post(`/webhooks/${hook.id}/rotate-secret`, undefined, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const [{ secret }] = await api.dataSource.query('SELECT secret FROM webhook_endpoints WHERE id = $1', [hook.id]);
    expect(secret).toBe(rotated.body.secret);
  });

  it('deletes an endpoint with its deliveries', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    await emitWebhookEvents(api.dataSource.manager, projectId, [{ type: 'contact.created', data: {} }]);
    expect((await client.delete(`/webhooks/${hook.id}`, { key })).body).toEqual({ success: true });
    expect((await client.get(`/webhooks/${hook.id}`, { key })).status).toBe(404);
    expect((await client.delete(`/webhooks/${hook.id}`, { key })).status).toBe(404);
    const [{ n }] = await api.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id]);
    expect(n).toBe(0);
  });

  it('pages the deliveries newest first, with the event type and each attempt recorded', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['contact.created', 'email.sent'] });
    for (let n = 0; n < 5; n++) {
      await emitWebhookEvents(api.dataSource.manager, projectId, [{ type: n % 2 ? 'email.sent' : 'contact.created', data: { n } }]);
    }
    await emitWebhookEvents(api.dataSource.manager, projectId, [{ type: 'contact.deleted', data: {} }]);
    await api.dataSource.query(
      `UPDATE webhook_deliveries SET attempts = 2, last_status_code = 503, last_error = 'answered 503' WHERE endpoint_id = $1`,
      [hook.id],
    );
    const first = await client.get(`/webhooks/${hook.id}/deliveries?limit=3`, { key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ hasMore: true, total: 5 });
    expect(first.body.data).toHaveLength(3);
    expect(first.body.data[0]).toEqual({
      id: expect.any(String),
      eventId: expect.any(String),
      eventType: 'contact.created',
      status: 'PENDING',
      attempts: 2,
      lastStatusCode: 503,
      lastError: 'answered 503',
      createdAt: expect.any(String),
      deliveredAt: null,
    });
    const second = await client.get(`/webhooks/${hook.id}/deliveries?limit=3&cursor=${encodeURIComponent(first.body.cursor)}`, { key });
    expect(second.body).toMatchObject({ hasMore: false, cursor: null });
    const types = [...first.body.data, ...second.body.data].map((row: { eventType: string }) => row.eventType);
    expect(types).toEqual(['contact.created', 'email.sent', 'contact.created', 'email.sent', 'contact.created']);
    expect((await client.get(`/webhooks/${hook.id}/deliveries?cursor=made-up`, { key })).status).toBe(400);
  });

  it('records a webhook.test event for the one endpoint it names', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['email.sent'] });
    const { body: other } = await create({ url: 'https://hooks.example.com/b', events: ['*'] });
    const test = await client.post(`/webhooks/${hook.id}/test`, undefined, { key });
    expect(test.status).toBe(202);
    expect(test.body).toMatchObject({ eventType: 'webhook.test', status: 'PENDING', attempts: 0, deliveredAt: null });
    const rows = await api.dataSource.query(
      'SELECT d.endpoint_id, d.started, e.data FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.project_id = $1',
      [projectId],
    );
    expect(rows).toEqual([{ endpoint_id: hook.id, started: false, data: { webhookId: hook.id, message: expect.any(String) } }]);
    expect((await client.get(`/webhooks/${other.id}/deliveries`, { key })).body.total).toBe(0);
  });

  it('refuses a test event with 409 LIMIT_EXCEEDED while 10 of the endpoint\'s test events are undelivered, counted right under concurrent calls', async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['email.sent'] });
    const { body: other } = await create({ url: 'https://hooks.example.com/b', events: ['*'] });
    const answers = await Promise.all(Array.from({ length: 13 }, () => client.post(`/webhooks/${hook.id}/test`, undefined, { key })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([...Array(10).fill(202), ...Array(3).fill(409)]);
    const refused = answers.find((answer) => answer.status === 409)!;
    expect(refused.body.error).toMatchObject({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('10 test events not delivered yet') });
    const pending = async (endpointId: string): Promise<number> =>
      (await api.dataSource.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'PENDING'`, [endpointId]))[0].n;
    expect(await pending(hook.id)).toBe(10);

    // Other endpoints and other events are not held back; a delivered test frees a place.
    expect((await client.post(`/webhooks/${other.id}/test`, undefined, { key })).status).toBe(202);
    await emitWebhookEvents(api.dataSource.manager, projectId, [{ type: 'email.sent', data: {} }]);
    expect(await pending(hook.id)).toBe(11);
    expect((await client.post(`/webhooks/${hook.id}/test`, undefined, { key })).status).toBe(409);
    await api.dataSource.query(
      `UPDATE webhook_deliveries SET status = 'DELIVERED' WHERE id = (SELECT d.id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE d.endpoint_id = $1 AND e.type = 'webhook.test' LIMIT 1)`,
      [hook.id],
    );
    expect((await client.post(`/webhooks/${hook.id}/test`, undefined, { key })).status).toBe(202);
  });

  it('refuses loopback, private and link-local targets, by address or by name, with a 422 naming url', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://169.254.169.254/latest', 'http://[::1]/hook', 'http://localhost:3000/hook']) {
      const refused = await create({ url, events: ['*'] });
      expect(refused.status).toBe(422);
      expect(refused.body.error.errors).toEqual([expect.objectContaining({ field: 'url', message: expect.stringMatching(/not public|non-public/) })]);
    }
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    const patched = await client.patch(`/webhooks/${hook.id}`, { url: 'http://192.168.1.10/hook' }, { key });
    expect(patched.status).toBe(422);
    expect(patched.body.error.errors[0].field).toBe('url');
    expect((await client.get(`/webhooks/${hook.id}`, { key })).body.url).toBe('https://hooks.example.com/a');
    expect(await endpointRows()).toBe(1);
  });

  it('validates url and events with 422s naming the field, storing nothing', async () => {
    const cases: [unknown, string][] = [
      [{ events: ['*'] }, 'url'],
      [{ url: 'ftp://example.com/x', events: ['*'] }, 'url'],
      [{ url: 'not a url', events: ['*'] }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}`, events: ['*'] }, 'url'],
      [{ url: 'https://example.com/x' }, 'events'],
      [{ url: 'https://example.com/x', events: [] }, 'events'],
      [{ url: 'https://example.com/x', events: ['email.exploded'] }, 'events'],
      [{ url: 'https://example.com/x', events: ['segment.VIP.entry'] }, 'events'],
      [{ url: 'https://example.com/x', events: 'email.sent' }, 'events'],
      [{ url: 'https://example.com/x', events: [42] }, 'events'],
      [{ url: 'https://example.com/x', events: ['*'], description: 7 }, 'description'],
    ];
    for (const [body, field] of cases) {
      const answer = await create(body);
      expect([answer.status, answer.body.error.errors.map((error: { field: string }) => error.field)]).toEqual([422, expect.arrayContaining([field])]);
    }
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    expect((await client.patch(`/webhooks/${hook.id}`, { events: [] }, { key })).status).toBe(422);
    expect((await client.patch(`/webhooks/${hook.id}`, { enabled: 'yes' }, { key })).status).toBe(422);
    expect((await client.patch(`/webhooks/${hook.id}`, { url: null }, { key })).status).toBe(422);
    expect(await endpointRows()).toBe(1);
  });

  it('caps a project at 20 endpoints', async () => {
    for (let n = 0; n < 20; n++) expect((await create({ url: `https://hooks.example.com/${n}`, events: ['*'] })).status).toBe(201);
    const refused = await create({ url: 'https://hooks.example.com/21', events: ['*'] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('LIMIT_EXCEEDED');
    expect(await endpointRows()).toBe(20);
  });

  it("answers 404 for another project's endpoint, and for an id that is no UUID, changing nothing", async () => {
    const { body: hook } = await create({ url: 'https://hooks.example.com/a', events: ['*'] });
    const other = (await signupWithProject(api)).project.secretKey as string;
    const calls: [string, string, unknown?][] = [
      ['GET', `/webhooks/${hook.id}`],
      ['PATCH', `/webhooks/${hook.id}`, { enabled: false }],
      ['PATCH', `/webhooks/${hook.id}`, { url: 'http://127.0.0.1/hook' }],
      ['DELETE', `/webhooks/${hook.id}`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
      ['POST', `/webhooks/${hook.id}/test`],
      ['POST', `/webhooks/${hook.id}/rotate-secret`],
    ];
    for (const [method, path, body] of calls) {
      const answer = await client.call(method, path, { key: other, body });
      expect([method, path, answer.status, answer.body.error.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
    expect((await client.get('/webhooks', { key: other })).body).toEqual([]);
    expect((await client.get('/webhooks/not-a-uuid', { key })).status).toBe(404);
    const [row] = await api.dataSource.query('SELECT enabled, secret FROM webhook_endpoints WHERE id = $1', [hook.id]);
    expect(row).toEqual({ enabled: true, secret: hook.secret });
    const [{ n }] = await api.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1', [hook.id]);
    expect(n).toBe(0);
  });

  it('needs the secret key, and leaves the mail-events and payments webhooks where they were', async () => {
    const { project } = await signupWithProject(api);
    expect((await client.get('/webhooks', { key: project.publicKey })).status).toBe(401);
    expect((await client.get('/webhooks')).status).toBe(401);
    const mailEvents = await client.post('/webhooks/mail-events', { notificationType: 'Unknown' });
    expect([401, 403]).toContain(mailEvents.status);
    expect(mailEvents.body.error.code).not.toBe('INVALID_API_KEY');
    const payments = await client.post('/webhooks/incoming/payments', {});
    expect(payments.body?.error?.code).not.toBe('INVALID_API_KEY');
    expect(payments.status).not.toBe(404);
  });
});
