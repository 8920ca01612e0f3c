import type { DataSource } from 'typeorm';
import { openDatabase } from '../../src/db/data-source';
import { purgeOldEvents } from '../../src/webhooks/webhooks-queries';
import { createProject } from '../automations/fixtures';
import { createEndpoint, emitOne } from './fixtures';

describe('webhook event retention', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
  });
  afterAll(() => dataSource?.destroy());

  it('deletes events older than 30 days with their deliveries, unless a delivery is still pending', async () => {
    const { projectId } = await createProject(dataSource);
    const { endpointId } = await createEndpoint(dataSource, projectId, 'https://example.com/hook');
    const emit = async (name: string, age: string, status: string) => {
      const deliveryId = (await emitOne(dataSource, projectId, { type: 'email.sent', data: { name } })).get(endpointId)!;
      await dataSource.query(
        `WITH d AS (UPDATE webhook_deliveries SET status = $2 WHERE id = $1 RETURNING event_id)
         UPDATE webhook_events SET created_at = now() - $3::interval WHERE id IN (SELECT event_id FROM d)`,
        [deliveryId, status, age],
      );
    };
    await emit('old delivered', '31 days', 'DELIVERED');
    await emit('old failed', '31 days', 'FAILED');
    await emit('old pending', '31 days', 'PENDING');
    await emit('recent', '29 days', 'DELIVERED');

    let deleted = 0;
    for (let batch = 1; batch === 1; deleted += batch) batch = await purgeOldEvents(dataSource.manager, 1);
    expect(deleted).toBeGreaterThanOrEqual(2);
    const left: { name: string; deliveries: number }[] = await dataSource.query(
      `SELECT e.data->>'name' AS name, (SELECT count(*)::int FROM webhook_deliveries d WHERE d.event_id = e.id) AS deliveries
         FROM webhook_events e WHERE e.project_id = $1 ORDER BY 1`,
      [projectId],
    );
    expect(left).toEqual([
      { name: 'old pending', deliveries: 1 },
      { name: 'recent', deliveries: 1 },
    ]);
    const [{ n }] = await dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1', [projectId]);
    expect(n).toBe(2);
  });
});
