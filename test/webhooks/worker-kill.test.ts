import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { emitWebhookEvents } from '../../src/webhooks/webhook-events';
import { until } from '../support/wait';
import { startReceiver, verifyHook, type Receiver } from './receiver';
import { startWebhookStack, type WebhookStack } from './webhook-stack';
import { WORKER_PROCESS_ARGS } from '../../src/orchestration/workflow-thread-guard';

/** Events recorded while the first worker runs, and while no worker runs. */
const BEFORE_KILL = 20;
const WHILE_DOWN = 10;

describe('event webhooks when the worker is SIGKILLed', () => {
  let hooks: WebhookStack;
  let receiver: Receiver;
  const workers: ChildProcess[] = [];

  beforeAll(async () => {
    [hooks, receiver] = await Promise.all([startWebhookStack('webhooks_kill', { worker: false }), startReceiver(() => 503)]);
  });
  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await hooks?.close();
    await receiver?.close();
  });

  /** A worker in a process of its own on the stack's task queue. */
  function spawnWorker(): ChildProcess {
    const worker = spawn(process.execPath, [...WORKER_PROCESS_ARGS, path.join(__dirname, '../support/worker-process.ts')], {
      stdio: 'ignore',
      env: { ...process.env, ...hooks.env },
    });
    workers.push(worker);
    return worker;
  }

  it('delivers every event, those failing at the kill and those recorded while no worker ran, with their one webhook-id', async () => {
    const { id: projectId, key } = await hooks.project();
    const created = await hooks.client.post('/webhooks', { url: `${receiver.url}/kill`, events: ['*'] }, { key });
    const { secret } = created.body as { secret: string };
    const emit = (from: number, count: number) =>
      emitWebhookEvents(
        hooks.api.dataSource.manager,
        projectId,
        Array.from({ length: count }, (_, n) => ({ type: 'contact.updated', data: { n: from + n } })),
      );

    const first = spawnWorker();
    await emit(0, BEFORE_KILL);
    await until(async () => new Set(receiver.received.map((hook) => hook.id)).size, (ids) => ids === BEFORE_KILL, 'a failed first attempt of every event', 60_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => (first.exitCode !== null || first.signalCode !== null ? resolve(undefined) : first.once('exit', resolve)));

    await emit(BEFORE_KILL, WHILE_DOWN);
    receiver.answer = () => 200;
    spawnWorker();
    const statuses = () => hooks.api.dataSource.query('SELECT status, attempts FROM webhook_deliveries WHERE project_id = $1', [projectId]) as Promise<{ status: string; attempts: number }[]>;
    const rows = await until(statuses, (all) => all.length === BEFORE_KILL + WHILE_DOWN && all.every((row) => row.status === 'DELIVERED'), 'every delivery DELIVERED', 150_000);
    expect(rows.filter((row) => row.attempts < 1)).toEqual([]);

    const events: { id: string }[] = await hooks.api.dataSource.query('SELECT id FROM webhook_events WHERE project_id = $1', [projectId]);
    const expectedIds = new Set(events.map((event) => `msg_${event.id}`));
    expect(new Set(receiver.received.map((hook) => hook.id))).toEqual(expectedIds);
    const numbers = receiver.received.map((hook) => (verifyHook(secret, hook) as { data: { n: number } }).data.n);
    expect(new Set(numbers).size).toBe(BEFORE_KILL + WHILE_DOWN);
    const firstFailedThenDelivered = receiver.received.filter((hook) => hook.id === receiver.received[0].id);
    expect(firstFailedThenDelivered.length).toBeGreaterThanOrEqual(2);
  }, 240_000);
});
