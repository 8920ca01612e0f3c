import type { DataSource } from 'typeorm';
import { createWebhookActivities } from '../../activities/webhooks';
import { openDatabase } from '../../src/db/data-source';
import { newWebhookSecret } from '../../src/webhooks/signature';
import { WebhookSender } from '../../src/webhooks/webhook-sender';
import { webhookDelivery } from '../../workflows/webhook-delivery';
import { webhookDeliveryWorkflowId } from '../../workflows/shared';
import { createProject } from '../automations/fixtures';
import { useTimeSkipping } from '../support/temporal';
import { createEndpoint, deliveryState, emitOne } from './fixtures';
import { startReceiver, verifyHook, type Receiver, type ReceiverAnswer } from './receiver';

describe('webhookDelivery workflow', () => {
  const temporal = useTimeSkipping();
  let dataSource: DataSource;
  let receiver: Receiver;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 2);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await dataSource?.destroy();
  });

  /** An endpoint at the receiver (path `/<name>`) with one emitted event; the receiver answers by `answers` in order, then 200. */
  async function oneDelivery(answers: ReceiverAnswer[]) {
    const { projectId } = await createProject(dataSource);
    const path = `/${projectId}`;
    const { endpointId, secret } = await createEndpoint(dataSource, projectId, `${receiver.url}${path}`);
    const deliveries = await emitOne(dataSource, projectId, { type: 'email.delivered', data: { emailId: 'e-1', to: 'ann@example.com' } });
    const deliveryId = deliveries.get(endpointId)!;
    const [{ event_id: eventId }] = await dataSource.query('SELECT event_id FROM webhook_deliveries WHERE id = $1', [deliveryId]);
    const left = [...answers];
    const answer = receiver.answer;
    receiver.answer = (hook, index) => (hook.path === path ? (left.shift() ?? 200) : answer(hook, index));
    return { projectId, endpointId, eventId, deliveryId, secret, hooks: () => receiver.received.filter((hook) => hook.path === path) };
  }

  async function run(deliveryId: string, workflowId: string, during?: () => Promise<void>) {
    const activities = createWebhookActivities({ dataSource, config: { webhookAllowPrivate: true }, timeoutMs: 1000 });
    return temporal.withWorker(activities, async (taskQueue) => {
      const handle = await temporal.env.client.workflow.start(webhookDelivery, { workflowId, taskQueue, args: [{ deliveryId }] });
      await during?.();
      return handle.result();
    });
  }

  it('signs the POST by Standard Webhooks, checked by an independent implementation', async () => {
    const subject = await oneDelivery([]);
    expect(await run(subject.deliveryId, webhookDeliveryWorkflowId(subject.endpointId, subject.eventId))).toBe('DELIVERED');
    const [hook] = subject.hooks();
    expect(hook.id).toBe(`msg_${subject.eventId}`);
    expect(hook.contentType).toBe('application/json');
    const body = verifyHook(subject.secret, hook) as { type: string; timestamp: string; data: unknown };
    expect(body).toEqual({ type: 'email.delivered', timestamp: expect.any(String), data: { emailId: 'e-1', to: 'ann@example.com' } });
    expect(() => verifyHook(newWebhookSecret(), hook)).toThrow();
    expect(() => verifyHook(subject.secret, { ...hook, body: hook.body.replace('ann', 'bob') })).toThrow();
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: 200, last_error: null });
  });

  /** What a finished execution's history holds: its workflow tasks, local activity markers, activities scheduled and timers. */
  async function historyOf(workflowId: string) {
    const { events } = await temporal.env.client.workflow.getHandle(workflowId).fetchHistory();
    const count = (has: (event: NonNullable<typeof events>[number]) => unknown) => (events ?? []).filter((event) => has(event)).length;
    return {
      workflowTasks: count((event) => event.workflowTaskCompletedEventAttributes),
      localActivities: count((event) => event.markerRecordedEventAttributes),
      activities: count((event) => event.activityTaskScheduledEventAttributes),
      timers: count((event) => event.timerStartedEventAttributes),
    };
  }

  it('makes a first attempt that succeeds in one workflow task, by a local activity', async () => {
    const subject = await oneDelivery([]);
    const workflowId = webhookDeliveryWorkflowId(subject.endpointId, subject.eventId);
    expect(await run(subject.deliveryId, workflowId)).toBe('DELIVERED');
    expect(await historyOf(workflowId)).toEqual({ workflowTasks: 1, localActivities: 1, activities: 0, timers: 0 });
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
  });

  it('falls back to the retried activity 5 s after a failed first attempt, numbering its attempts on from 2', async () => {
    const subject = await oneDelivery([503]);
    const workflowId = webhookDeliveryWorkflowId(subject.endpointId, subject.eventId);
    expect(await run(subject.deliveryId, workflowId)).toBe('DELIVERED');
    expect(await historyOf(workflowId)).toMatchObject({ localActivities: 1, activities: 1, timers: 1 });
    expect(subject.hooks()).toHaveLength(2);
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'DELIVERED', attempts: 2, last_status_code: 200 });
  });

  it('retries after 5xx answers and a timeout with the same webhook-id and body, then records the delivery', async () => {
    const subject = await oneDelivery([500, 'hang', 503]);
    await dataSource.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '1 day' WHERE id = $1`, [subject.endpointId]);
    expect(await run(subject.deliveryId, webhookDeliveryWorkflowId(subject.endpointId, subject.eventId))).toBe('DELIVERED');
    const hooks = subject.hooks();
    expect(hooks).toHaveLength(4);
    expect(new Set(hooks.map((hook) => hook.id))).toEqual(new Set([`msg_${subject.eventId}`]));
    expect(new Set(hooks.map((hook) => hook.body)).size).toBe(1);
    for (const hook of hooks) verifyHook(subject.secret, hook);
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'DELIVERED', attempts: 4, last_status_code: 200, last_error: null });
    const [endpoint] = await dataSource.query('SELECT enabled, failing_since FROM webhook_endpoints WHERE id = $1', [subject.endpointId]);
    expect(endpoint).toEqual({ enabled: true, failing_since: null });
  });

  it('records each failed attempt, marks the endpoint failing, and gives up after more than 24 hours of retries', async () => {
    const subject = await oneDelivery(new Array<ReceiverAnswer>(100).fill(502));
    const started = Date.now();
    const before = await temporal.env.currentTimeMs();
    expect(await run(subject.deliveryId, webhookDeliveryWorkflowId(subject.endpointId, subject.eventId))).toBe('FAILED');
    const skipped = (await temporal.env.currentTimeMs()) - before - (Date.now() - started);
    expect(skipped).toBeGreaterThan(24 * 3600_000);
    const hooks = subject.hooks();
    expect(hooks.length).toBeGreaterThanOrEqual(30);
    expect(new Set(hooks.map((hook) => hook.id)).size).toBe(1);
    const state = await deliveryState(dataSource, subject.deliveryId);
    expect(state).toMatchObject({ status: 'FAILED', attempts: hooks.length, last_status_code: 502 });
    expect(state.last_error).toContain('answered 502');
    const [endpoint] = await dataSource.query('SELECT enabled, failing_since FROM webhook_endpoints WHERE id = $1', [subject.endpointId]);
    expect(endpoint.enabled).toBe(true);
    expect(endpoint.failing_since).toBeInstanceOf(Date);
  });

  it('signs each attempt with the secret the endpoint has then', async () => {
    const subject = await oneDelivery([500]);
    const rotated = newWebhookSecret();
    const outcome = await run(subject.deliveryId, webhookDeliveryWorkflowId(subject.endpointId, subject.eventId), async () => {
      while (subject.hooks().length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await dataSource.query('UPDATE webhook_endpoints SET secret = $2 WHERE id = $1', [subject.endpointId, rotated]);
    });
    expect(outcome).toBe('DELIVERED');
    const [first, second] = subject.hooks();
    verifyHook(subject.secret, first);
    expect(() => verifyHook(subject.secret, second)).toThrow();
    verifyHook(rotated, second);
  });

  it('disables an endpoint that has failed for 5 days and fails the delivery without retrying', async () => {
    const subject = await oneDelivery([500, 500]);
    await dataSource.query(`UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE id = $1`, [subject.endpointId]);
    expect(await run(subject.deliveryId, webhookDeliveryWorkflowId(subject.endpointId, subject.eventId))).toBe('FAILED');
    expect(subject.hooks()).toHaveLength(1);
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'FAILED', attempts: 1, last_status_code: 500 });
    const [endpoint] = await dataSource.query('SELECT enabled, disabled_reason, disabled_at FROM webhook_endpoints WHERE id = $1', [subject.endpointId]);
    expect(endpoint.enabled).toBe(false);
    expect(endpoint.disabled_reason).toMatch(/^Every delivery failed for 5 days \(since .*\); last error: .*answered 500/);
    expect(endpoint.disabled_at).toBeInstanceOf(Date);

    const next = await emitOne(dataSource, subject.projectId, { type: 'email.sent', data: {} });
    expect(next.size).toBe(0);
  });

  it('refuses loopback targets, by address or by name, at every attempt unless private targets are allowed', async () => {
    const subject = await oneDelivery([]);
    const guarded = new WebhookSender(dataSource, { allowPrivate: false, timeoutMs: 1000 });
    const byAddress = await guarded.attempt(subject.deliveryId, 1);
    expect(byAddress).toEqual({ retry: expect.stringContaining('127.0.0.1 is not public') });
    await dataSource.query(`UPDATE webhook_endpoints SET url = replace(url, '127.0.0.1', 'localhost') WHERE id = $1`, [subject.endpointId]);
    const byName = await guarded.attempt(subject.deliveryId, 2);
    expect(byName).toEqual({ retry: expect.stringContaining('resolves to a non-public address') });
    expect(subject.hooks()).toHaveLength(0);
    expect(await deliveryState(dataSource, subject.deliveryId)).toMatchObject({ status: 'PENDING', attempts: 2, last_status_code: null });

    const allowed = new WebhookSender(dataSource, { allowPrivate: true, timeoutMs: 1000 });
    expect(await allowed.attempt(subject.deliveryId, 3)).toEqual({ done: 'DELIVERED' });
    expect(subject.hooks()).toHaveLength(1);
  });

  it('fails a delivery to a disabled endpoint at once, and ends one whose endpoint was deleted', async () => {
    const disabled = await oneDelivery([]);
    await dataSource.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'Disabled through the API' WHERE id = $1`, [disabled.endpointId]);
    expect(await run(disabled.deliveryId, webhookDeliveryWorkflowId(disabled.endpointId, disabled.eventId))).toBe('FAILED');
    expect(await deliveryState(dataSource, disabled.deliveryId)).toMatchObject({ status: 'FAILED', attempts: 0, last_error: 'The endpoint is disabled: Disabled through the API' });

    const deleted = await oneDelivery([]);
    await dataSource.query('DELETE FROM webhook_endpoints WHERE id = $1', [deleted.endpointId]);
    expect(await run(deleted.deliveryId, webhookDeliveryWorkflowId(deleted.endpointId, deleted.eventId))).toBe('GONE');
    expect(disabled.hooks().length + deleted.hooks().length).toBe(0);
  });
});
