import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { dispatchDeliveries } from '../../src/webhooks/webhook-dispatch';
import { createProject } from '../automations/fixtures';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';
import { createEndpoint, emitOne } from './fixtures';

describe('a webhook dispatch pass', () => {
  let database: ScratchDatabase;

  beforeAll(async () => {
    database = await createScratchDatabase(process.env.DATABASE_URL!, 'webhook_pass');
  });
  afterAll(() => database?.drop());

  /** A Temporal client whose starts are recorded, refused for ids containing `refuse`, and "already started" for ids containing `running`. */
  function fakeTemporal(refuse: string[], running: string[]) {
    const starts: string[] = [];
    const summaries: string[] = [];
    const client = {
      workflow: {
        start: async (_workflow: unknown, options: { workflowId: string; staticSummary: string }) => {
          starts.push(options.workflowId);
          summaries.push(options.staticSummary);
          if (refuse.some((id) => options.workflowId.includes(id))) throw new Error('Temporal refused the start');
          if (running.some((id) => options.workflowId.includes(id))) throw new WorkflowExecutionAlreadyStartedError('running', options.workflowId, 'webhookDelivery');
        },
      },
    };
    return { client: client as unknown as Client, starts, summaries };
  }

  it('starts hook/<endpointId>/<eventId> per delivery (its summary naming the origin only), counts an already running one as started, and leaves a refused one for the next pass', async () => {
    const db = database.dataSource;
    const { projectId } = await createProject(db);
    const { endpointId } = await createEndpoint(db, projectId, 'https://example.com/hooks/T0K3N?key=secret');
    const ids: string[] = [];
    for (const type of ['email.sent', 'email.delivered', 'email.opened']) ids.push((await emitOne(db, projectId, { type, data: {} })).get(endpointId)!);
    const eventOf = async (deliveryId: string): Promise<string> => (await db.query('SELECT event_id FROM webhook_deliveries WHERE id = $1', [deliveryId]))[0].event_id;
    const [sent, delivered, opened] = await Promise.all(ids.map(eventOf));

    const first = fakeTemporal([opened], [delivered]);
    expect(await dispatchDeliveries(db, first.client, 'queue')).toEqual({ started: 2, failed: 1, error: 'Temporal refused the start' });
    expect(first.starts.sort()).toEqual([sent, delivered, opened].map((event) => `hook/${endpointId}/${event}`).sort());
    const startedRows = async () => (await db.query('SELECT id FROM webhook_deliveries WHERE started ORDER BY id')).map((row: { id: string }) => row.id);
    expect(await startedRows()).toEqual([ids[0], ids[1]].sort());

    const second = fakeTemporal([], []);
    expect(await dispatchDeliveries(db, second.client, 'queue')).toEqual({ started: 1, failed: 0 });
    expect(second.starts).toEqual([`hook/${endpointId}/${opened}`]);
    expect(second.summaries).toEqual(['Webhook email.opened to https://example.com']);
    expect(await startedRows()).toEqual([...ids].sort());
    expect(await dispatchDeliveries(db, second.client, 'queue')).toEqual({ started: 0, failed: 0 });
  });
});
