import { SesHerald } from '../support/ses-herald';
import { until } from '../support/wait';

/**
 * `npm start` SIGKILLed (every process at once) while contacts' workflow executions send their
 * SEND_EMAIL step, which runs as a local activity inside a workflow task, then started again on
 * the same DATA_DIR: every execution ends EXITED with one email record, every contact gets its
 * email, and only the sends cut off in flight at the kill are repeated.
 */
const CONTACTS = 60;
/** Slow enough that sends are in flight at the kill. */
const SES_LATENCY_MS = 150;
const DOMAIN = 'flow-crash.example.com';

describe('crash recovery of workflow executions', () => {
  let herald: SesHerald;

  beforeAll(async () => {
    herald = await SesHerald.create('flow-crash', SES_LATENCY_MS);
    // Four workflow tasks at once, each holding its task while its email is sent: the sends of the
    // executions that woke together go out four at a time, so the kill finds some sent and some not.
    herald.env.WORKFLOW_TASK_CONCURRENCY = '4';
  });

  afterAll(async () => {
    await herald.close();
  });

  it('sends every contact its workflow email across a kill of every process, repeating only the sends in flight', async () => {
    const running = await herald.start();
    const { project, key, client } = await herald.projectWithDomain('Flow crash', DOMAIN);
    const post = (route: string, body: unknown) => client.post(route, body, { key });

    const workflowId = (await post('/workflows', { name: 'Welcome', triggerConfig: { eventName: 'signed_up' } })).body.id;
    const stepIds: string[] = [];
    for (const step of [
      { type: 'DELAY', config: { amount: 1, unit: 'seconds' } },
      { type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from: `hello@${DOMAIN}`, type: 'TRANSACTIONAL' } },
      { type: 'EXIT', config: {} },
    ]) {
      stepIds.push((await post(`/workflows/${workflowId}/steps`, step)).body.id);
    }
    for (let i = 1; i < stepIds.length; i++) {
      expect((await post(`/workflows/${workflowId}/transitions`, { fromStepId: stepIds[i - 1], toStepId: stepIds[i] })).status).toBe(201);
    }
    expect((await client.patch(`/workflows/${workflowId}`, { enabled: true }, { key })).status).toBe(200);
    const tracked = await Promise.all(
      Array.from({ length: CONTACTS }, (_, i) => client.post('/v1/track', { email: `contact${i}@flow.test`, event: 'signed_up' }, { key })),
    );
    expect(tracked.map((answer) => answer.status)).toEqual(Array(CONTACTS).fill(200));

    const messages = () => [...herald.messagesPerEmail(project.id).values()].reduce((sum, n) => sum + n, 0);
    await until(async () => messages(), (n) => n >= CONTACTS / 4, 'a quarter of the emails to reach SES', 120_000);
    const { rows: [before] } = await herald.db.query(`SELECT count(*)::int AS sent FROM emails WHERE project_id = $1 AND source = 'WORKFLOW' AND status = 'SENT'`, [project.id]);
    await herald.disconnect();
    await running.killAll();
    // Requests SES took before the kill are answered (and kept) after its latency.
    await new Promise((resolve) => setTimeout(resolve, 2 * SES_LATENCY_MS));
    const cutOff = messages() - before.sent;
    expect(messages()).toBeLessThan(CONTACTS);

    await herald.start('herald-output-2.log');
    const statuses = await until(
      async () => (await herald.db.query(`SELECT status, count(*)::int AS n FROM workflow_executions WHERE workflow_id = $1 GROUP BY status`, [workflowId])).rows,
      (rows) => rows.length === 1 && rows[0].status === 'EXITED' && rows[0].n === CONTACTS,
      'every execution to exit',
      180_000,
    );
    expect(statuses).toEqual([{ status: 'EXITED', n: CONTACTS }]);

    const { rows: emails } = await herald.db.query(`SELECT id, to_email, status FROM emails WHERE project_id = $1 AND source = 'WORKFLOW'`, [project.id]);
    expect(emails).toHaveLength(CONTACTS);
    expect(new Set(emails.map((email) => email.to_email)).size).toBe(CONTACTS);
    expect(emails.filter((email) => email.status !== 'SENT')).toEqual([]);
    await until(async () => herald.messagesPerEmail(project.id).size, (n) => n === CONTACTS, 'SES to have every email', 30_000);
    const perEmail = herald.messagesPerEmail(project.id);
    expect(emails.filter((email) => !perEmail.get(email.id))).toEqual([]);
    const duplicates = [...perEmail.values()].reduce((sum, n) => sum + n - 1, 0);
    expect(duplicates).toBeLessThanOrEqual(cutOff);
  }, 10 * 60_000);
});
