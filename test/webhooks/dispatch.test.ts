import { dispatchDeliveries } from '../../src/webhooks/webhook-dispatch';
import { emitWebhookEvents } from '../../src/webhooks/webhook-events';
import { webhookDeliveryWorkflowId } from '../../workflows/shared';
import { until } from '../support/wait';
import { startReceiver, verifyHook, type Receiver } from './receiver';
import { startWebhookStack, type WebhookStack } from './webhook-stack';

describe('event webhooks end to end', () => {
  let hooks: WebhookStack;
  let receiver: Receiver;

  beforeAll(async () => {
    [hooks, receiver] = await Promise.all([startWebhookStack('webhooks_dispatch'), startReceiver()]);
  });
  afterAll(async () => {
    await hooks?.close();
    await receiver?.close();
  });

  const create = async (key: string, path: string, events: string[]) => {
    const answer = await hooks.client.post('/webhooks', { url: `${receiver.url}${path}`, events }, { key });
    expect(answer.status).toBe(201);
    return answer.body as { id: string; secret: string };
  };
  const deliveries = (projectId: string): Promise<{ status: string }[]> =>
    hooks.api.dataSource.query('SELECT status FROM webhook_deliveries WHERE project_id = $1', [projectId]);
  const settled = (projectId: string, count: number) =>
    until(() => deliveries(projectId), (rows) => rows.length === count && rows.every((row) => row.status !== 'PENDING'), 'settled deliveries');
  const at = (path: string) => receiver.received.filter((hook) => hook.path === path);

  it("delivers each project's events to its endpoints that subscribe to their types, and nowhere else", async () => {
    const a = await hooks.project();
    const b = await hooks.project();
    const aDelivered = await create(a.key, `/a-delivered-${a.id}`, ['email.delivered']);
    const aAll = await create(a.key, `/a-all-${a.id}`, ['*']);
    const bAll = await create(b.key, `/b-all-${b.id}`, ['*']);

    await emitWebhookEvents(hooks.api.dataSource.manager, a.id, [
      { type: 'email.delivered', data: { emailId: 'e-a' } },
      { type: 'contact.created', data: { contactId: 'c-a' } },
    ]);
    await emitWebhookEvents(hooks.api.dataSource.manager, b.id, [{ type: 'contact.deleted', data: { contactId: 'c-b' } }]);
    await settled(a.id, 3);
    await settled(b.id, 1);

    const typesAt = (path: string, secret: string) => at(path).map((hook) => (verifyHook(secret, hook) as { type: string }).type).sort();
    expect(typesAt(`/a-delivered-${a.id}`, aDelivered.secret)).toEqual(['email.delivered']);
    expect(typesAt(`/a-all-${a.id}`, aAll.secret)).toEqual(['contact.created', 'email.delivered']);
    expect(typesAt(`/b-all-${b.id}`, bAll.secret)).toEqual(['contact.deleted']);
    const deliveredId = at(`/a-delivered-${a.id}`)[0].id;
    expect(at(`/a-all-${a.id}`).map((hook) => hook.id)).toContain(deliveredId);
    expect((await deliveries(a.id)).map((row) => row.status)).toEqual(['DELIVERED', 'DELIVERED', 'DELIVERED']);
  });

  it('sends a test event to the one endpoint, and lists it among its deliveries', async () => {
    const a = await hooks.project();
    const target = await create(a.key, `/test-${a.id}`, ['email.sent']);
    await create(a.key, `/other-${a.id}`, ['*']);
    const sent = await hooks.client.post(`/webhooks/${target.id}/test`, undefined, { key: a.key });
    expect(sent.status).toBe(202);
    await settled(a.id, 1);
    const [hook] = at(`/test-${a.id}`);
    expect(verifyHook(target.secret, hook)).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { webhookId: target.id, message: expect.any(String) } });
    expect(at(`/other-${a.id}`)).toEqual([]);
    const page = await hooks.client.get(`/webhooks/${target.id}/deliveries`, { key: a.key });
    expect(page.body.data).toEqual([
      expect.objectContaining({ id: sent.body.id, eventType: 'webhook.test', status: 'DELIVERED', attempts: 1, lastStatusCode: 200, lastError: null, deliveredAt: expect.any(String) }),
    ]);
  });

  it('posts nothing again when a dispatch pass repeats after its workflows started (a crash before it marked them)', async () => {
    const a = await hooks.project();
    await create(a.key, `/again-${a.id}`, ['*']);
    await emitWebhookEvents(hooks.api.dataSource.manager, a.id, [{ type: 'campaign.sent', data: {} }]);
    await settled(a.id, 1);
    // The stack's webhook-dispatch workflow passes every second too, and may start the unmarked delivery first.
    const repeated = await until(
      async () => {
        await hooks.api.dataSource.query('UPDATE webhook_deliveries SET started = false WHERE project_id = $1', [a.id]);
        return dispatchDeliveries(hooks.api.dataSource, hooks.temporal.client, hooks.env.TEMPORAL_TASK_QUEUE);
      },
      (result) => result.started === 1,
      'a pass that starts the unmarked delivery',
    );
    expect(repeated).toMatchObject({ started: 1, failed: 0 });
    const [{ started }] = await hooks.api.dataSource.query('SELECT started FROM webhook_deliveries WHERE project_id = $1', [a.id]);
    expect(started).toBe(true);
    const [{ endpoint_id: endpointId, event_id: eventId }] = await hooks.api.dataSource.query('SELECT endpoint_id, event_id FROM webhook_deliveries WHERE project_id = $1', [a.id]);
    expect(await hooks.temporal.client.workflow.getHandle(webhookDeliveryWorkflowId(endpointId, eventId)).result()).toBe('DELIVERED');
    expect(at(`/again-${a.id}`)).toHaveLength(1);
  });
});
