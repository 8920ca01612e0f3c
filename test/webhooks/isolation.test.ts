import { emitWebhookEvents } from '../../src/webhooks/webhook-events';
import { projectWithVerifiedDomain } from '../support/api';
import { until } from '../support/wait';
import { startReceiver, type Receiver } from './receiver';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

/** The webhook worker's activity slots in this test. */
const CONCURRENCY = 4;
/** More pending deliveries than a worker's default 100 activity slots. */
const DELIVERIES = 150;

describe('webhook deliveries on their own task queue', () => {
  let hooks: WebhookStack;
  let tarpit: Receiver;

  beforeAll(async () => {
    [hooks, tarpit] = await Promise.all([startWebhookStack('webhooks_isolation', { env: { WEBHOOK_CONCURRENCY: String(CONCURRENCY) } }), startReceiver(() => 'hang')]);
  });
  afterAll(async () => {
    await tarpit?.close();
    await hooks?.close();
  });

  it("sends another project's email while an endpoint that never answers holds every webhook slot", async () => {
    const flooding = await hooks.project();
    const created = await hooks.client.post('/webhooks', { url: `${tarpit.url}/never`, events: ['*'] }, { key: flooding.key });
    expect(created.status).toBe(201);
    await emitWebhookEvents(
      hooks.api.dataSource.manager,
      flooding.id,
      Array.from({ length: DELIVERIES }, (_, n) => ({ type: 'contact.updated', data: { n } })),
    );
    await until(
      async () => (await hooks.api.dataSource.query('SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 AND started', [flooding.id]))[0].n as number,
      (started) => started === DELIVERIES,
      'every delivery workflow started',
      60_000,
    );
    await until(async () => tarpit.received.length, (hanging) => hanging >= CONCURRENCY, 'webhook attempts hanging at the tarpit', 60_000);

    const sender = await projectWithVerifiedDomain(hooks.api);
    const sent = await hooks.client.post('/v1/send', { from: `hello@${sender.domain}`, to: 'ada@example.com', subject: 'Receipt', body: '<p>Thanks</p>' }, { key: sender.key });
    expect(sent.status).toBe(200);
    const emailId = sent.body.data.emails[0].email as string;
    await until(
      async () => (await hooks.api.dataSource.query('SELECT status FROM emails WHERE id = $1', [emailId]))[0]?.status as string,
      (status) => status === 'SENT',
      'the email SENT',
      60_000,
    );
    const attempted: { attempted: number }[] = await hooks.api.dataSource.query(
      'SELECT count(*)::int AS attempted FROM webhook_deliveries WHERE project_id = $1 AND attempts > 0',
      [flooding.id],
    );
    const hanging = tarpit.received.length;
    const captured: { n: number }[] = await hooks.api.dataSource.query(`SELECT count(*)::int AS n FROM outbox_messages WHERE 'ada@example.com' = ANY("to")`);

    expect(captured).toEqual([{ n: 1 }]);
    // The email went out while the first attempts still hung, no more of them at once than the cap.
    expect(attempted).toEqual([{ attempted: 0 }]);
    expect(hanging).toBeLessThanOrEqual(CONCURRENCY);
  }, 120_000);
});
