import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { emitWebhookEvents, isWebhookEventType } from '../../src/webhooks/webhook-events';
import { createProject } from '../automations/fixtures';

describe('emitWebhookEvents', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
  });
  afterAll(() => dataSource?.destroy());

  async function endpoint(projectId: string, events: string[], enabled = true): Promise<string> {
    const [{ id }] = await dataSource.query(
      `INSERT INTO webhook_endpoints (project_id, url, events, secret, enabled) VALUES ($1, 'https://example.com/hook', $2, 'whsec_AAAA', $3) RETURNING id`,
      [projectId, events, enabled],
    );
    return id;
  }

  const deliveries = (projectId: string): Promise<{ endpoint_id: string; type: string; data: unknown; started: boolean; status: string }[]> =>
    dataSource.query(
      `SELECT d.endpoint_id, e.type, e.data, d.started, d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE d.project_id = $1 ORDER BY e.type, d.endpoint_id`,
      [projectId],
    );
  const eventCount = async (projectId: string): Promise<number> =>
    (await dataSource.query('SELECT count(*)::int AS n FROM webhook_events WHERE project_id = $1', [projectId]))[0].n;

  it('stores nothing for a project without an endpoint', async () => {
    const { projectId } = await createProject(dataSource);
    await emitWebhookEvents(dataSource.manager, projectId, [{ type: 'contact.created', data: { contactId: 'c' } }]);
    expect(await eventCount(projectId)).toBe(0);
  });

  it('records a delivery per enabled endpoint subscribed to the type or to *, and none for others', async () => {
    const { projectId } = await createProject(dataSource);
    const all = await endpoint(projectId, ['*']);
    const created = await endpoint(projectId, ['contact.created']);
    await endpoint(projectId, ['email.sent']);
    await endpoint(projectId, ['*'], false);
    const other = (await createProject(dataSource)).projectId;
    await endpoint(other, ['*']);

    await emitWebhookEvents(dataSource.manager, projectId, [
      { type: 'contact.created', data: { contactId: 'c1' } },
      { type: 'contact.deleted', data: { contactId: 'c2' } },
      { type: 'campaign.sent', data: {} },
    ]);

    const rows = await deliveries(projectId);
    expect(rows.map((row) => [row.type, row.endpoint_id]).sort()).toEqual(
      [
        ['campaign.sent', all],
        ['contact.created', all],
        ['contact.created', created],
        ['contact.deleted', all],
      ].sort(),
    );
    expect(rows.every((row) => row.status === 'PENDING' && !row.started)).toBe(true);
    expect(rows.find((row) => row.type === 'contact.deleted')!.data).toEqual({ contactId: 'c2' });
    expect(await eventCount(projectId)).toBe(3);
    expect(await deliveries(other)).toEqual([]);
  });

  it('records an event once per key, even when emitted twice or twice in one call', async () => {
    const { projectId } = await createProject(dataSource);
    await endpoint(projectId, ['*']);
    const event = { type: 'email.sent', data: { emailId: 'e1' }, key: 'email.sent:e1' };
    await emitWebhookEvents(dataSource.manager, projectId, [event, event]);
    await emitWebhookEvents(dataSource.manager, projectId, [event, { type: 'email.delivered', data: {}, key: 'email.delivered:e1' }]);
    expect((await deliveries(projectId)).map((row) => row.type)).toEqual(['email.delivered', 'email.sent']);
  });

  it('writes in the caller transaction: a rollback leaves nothing', async () => {
    const { projectId } = await createProject(dataSource);
    await endpoint(projectId, ['*']);
    await expect(
      dataSource.transaction(async (manager) => {
        await emitWebhookEvents(manager, projectId, [{ type: 'contact.created', data: {} }]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await eventCount(projectId)).toBe(0);
  });

  it('knows the event types, segment entries and exits included', () => {
    expect(isWebhookEventType('email.bounced')).toBe(true);
    expect(isWebhookEventType('segment.vip-customers.entry')).toBe(true);
    expect(isWebhookEventType('segment.vip.exit')).toBe(true);
    expect(isWebhookEventType('segment.VIP.entry')).toBe(false);
    expect(isWebhookEventType('segment.vip.joined')).toBe(false);
    expect(isWebhookEventType('webhook.test')).toBe(false);
    expect(isWebhookEventType('*')).toBe(false);
  });
});
