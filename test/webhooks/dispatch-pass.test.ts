import type { Client } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { dispatchDeliveries } from '../../src/webhooks/webhook-dispatch';
import { emitWebhookEvents } from '../../src/webhooks/webhook-events';
import { DISPATCH_PER_PROJECT } from '../../src/webhooks/webhooks-queries';
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

  it("claims round-robin across projects: a project's backlog delays another project's first event by no pass", async () => {
    const db = database.dataSource;
    const flooding = await createProject(db);
    const quiet = await createProject(db);
    const other = await createProject(db);
    const endpoints = new Map<string, string>();
    for (const { projectId } of [flooding, quiet, other]) endpoints.set((await createEndpoint(db, projectId, `https://example.com/${projectId}`)).endpointId, projectId);
    const emit = (projectId: string, count: number) =>
      emitWebhookEvents(db.manager, projectId, Array.from({ length: count }, (_, n) => ({ type: 'contact.updated', data: { n } })));
    await emit(flooding.projectId, 300);
    await emit(quiet.projectId, 1);
    await emit(other.projectId, 2);
    const startedBy = (starts: string[]) => {
      const counts = new Map<string, number>();
      for (const id of starts) {
        const projectId = endpoints.get(id.split('/')[1])!;
        counts.set(projectId, (counts.get(projectId) ?? 0) + 1);
      }
      return [flooding, quiet, other].map(({ projectId }) => counts.get(projectId) ?? 0);
    };

    // Three at most: the oldest of each project, however old the flooding project's backlog.
    const first = fakeTemporal([], []);
    expect(await dispatchDeliveries(db, first.client, 'queue', 3)).toEqual({ started: 3, failed: 0 });
    expect(startedBy(first.starts)).toEqual([1, 1, 1]);

    // A full pass takes the rest of the small projects and no more than its share of the backlog.
    const second = fakeTemporal([], []);
    expect(await dispatchDeliveries(db, second.client, 'queue', 200)).toEqual({ started: DISPATCH_PER_PROJECT + 1, failed: 0 });
    expect(startedBy(second.starts)).toEqual([DISPATCH_PER_PROJECT, 0, 1]);
    const unstarted: { project_id: string; n: number }[] = await db.query('SELECT project_id, count(*)::int AS n FROM webhook_deliveries WHERE NOT started GROUP BY project_id');
    expect(unstarted).toEqual([{ project_id: flooding.projectId, n: 300 - 1 - DISPATCH_PER_PROJECT }]);
  });
});
