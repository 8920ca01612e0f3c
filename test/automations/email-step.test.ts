import { randomUUID } from 'node:crypto';
import { ArrayContains } from 'typeorm';
import { loadConfig } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { EventDispatcher } from '../../src/events/dispatcher';
import { OutboxMessage } from '../../src/entities/outbox-message';
import { createMailer } from '../../src/mailer';
import { Delivery } from '../../src/sending/delivery';
import { workflowEmailId } from '../../src/automations/email-ids';
import { EmailStep } from '../../src/automations/email-step';
import { ExecutionRecords } from '../../src/automations/execution-records';
import { startExecution } from '../../src/automations/start-execution';
import { useEngineProject } from '../support/stack';
import { createContact, createWorkflow, until } from './fixtures';

describe('SEND_EMAIL steps', () => {
  const given = useEngineProject('wf-email');

  /** The outbox messages to `email`, newest first. */
  const sentTo = (email: string) => given.dataSource.getRepository(OutboxMessage).find({ where: { to: ArrayContains([email]) }, order: { createdAt: 'DESC' } });

  const execution = async (executionId: string) =>
    ((await given.dataSource.query('SELECT status, error, context FROM workflow_executions WHERE id = $1', [executionId])) as {
      status: string;
      error: string | null;
      context: Record<string, unknown>;
    }[])[0];

  /** Runs a one-step SEND_EMAIL workflow for a new contact until the execution ends. */
  async function runSend(config: Record<string, unknown>, contact: { subscribed?: boolean; data?: Record<string, unknown> } = {}) {
    const { workflowId, stepIds } = await createWorkflow(given.dataSource, given.projectId, { steps: [{ key: 'send', type: 'SEND_EMAIL', config }] });
    const { contactId, email } = await createContact(given.dataSource, given.projectId, contact);
    const started = (await startExecution(given.deps, { projectId: given.projectId, workflowId, contactId, context: { coupon: 'WELCOME' }, eventData: { item: 'Lamp' } }))!;
    const ended = await until(() => execution(started.id), (row) => !['RUNNING', 'WAITING'].includes(row.status));
    return { executionId: started.id, stepId: stepIds.send, email, ended };
  }

  it('sends one WORKFLOW email rendered for the contact, the context and the triggering event', async () => {
    const { executionId, stepId, email, ended } = await runSend(
      { subject: 'Hi {{ first }}', body: '<p>{{ item }} with {{ coupon }}</p>', from: `news@${given.domain}`, fromName: 'News' },
      { data: { first: 'Ada' } },
    );
    expect(ended.status).toBe('COMPLETED');
    const [record] = await given.dataSource.query('SELECT id, source, type, status, to_email FROM emails WHERE id = $1', [workflowEmailId(executionId, stepId)]);
    expect(record).toMatchObject({ source: 'WORKFLOW', type: 'MARKETING', status: 'SENT', to_email: email });
    const messages = await sentTo(email);
    expect(messages).toHaveLength(1);
    expect(messages[0].subject).toBe('Hi Ada');
    expect(messages[0].html).toContain('Lamp with WELCOME');
    expect(messages[0].headers['List-Unsubscribe']).toBeDefined();
  });

  it('does not wake its execution with the email.sent of its own email: nothing in its graph waits for an event', async () => {
    const { executionId, stepId, ended } = await runSend({ subject: 'Hi', body: '<p>Hi</p>', from: `news@${given.domain}`, type: 'TRANSACTIONAL' });
    expect(ended.status).toBe('COMPLETED');
    const emailId = workflowEmailId(executionId, stepId);
    await until(
      async () => ((await given.dataSource.query(`SELECT count(*)::int AS n FROM events WHERE name = 'email.sent' AND data->>'emailId' = $1`, [emailId])) as { n: number }[])[0].n,
      (n) => n === 1,
    );
    // The event was handed to its subscribers: no dispatch of the project is left (other suites' rows are theirs).
    await until(
      async () => ((await given.dataSource.query('SELECT count(*)::int AS n FROM event_dispatches WHERE project_id = $1', [given.projectId])) as { n: number }[])[0].n,
      (n) => n === 0,
    );
    const { events } = await given.temporal.client.workflow.getHandle(`wf-exec/${executionId}`).fetchHistory();
    expect(events!.filter((event) => event.workflowExecutionSignaledEventAttributes)).toHaveLength(0);
    expect(events!.filter((event) => event.workflowTaskFailedEventAttributes)).toHaveLength(0);
  });

  it('skips MARKETING mail to an unsubscribed contact and records the skip on the execution', async () => {
    const { stepId, email, ended } = await runSend({ subject: 'News', body: '<p>News</p>', from: `news@${given.domain}` }, { subscribed: false });
    expect(ended.status).toBe('COMPLETED');
    expect(ended.context).toEqual({ coupon: 'WELCOME', skipped: [{ stepId, reason: 'unsubscribed', at: expect.any(String) }] });
    expect(await sentTo(email)).toHaveLength(0);
  });

  it('sends TRANSACTIONAL mail to an unsubscribed contact', async () => {
    const { ended, email } = await runSend({ subject: 'Receipt', body: '<p>Paid</p>', from: `billing@${given.domain}`, type: 'TRANSACTIONAL' }, { subscribed: false });
    expect(ended.status).toBe('COMPLETED');
    expect(await sentTo(email)).toHaveLength(1);
  });

  it('skips a suppressed address', async () => {
    const { workflowId, stepIds } = await createWorkflow(given.dataSource, given.projectId, {
      steps: [{ key: 'send', type: 'SEND_EMAIL', config: { subject: 'Receipt', body: '<p>Paid</p>', from: `billing@${given.domain}`, type: 'TRANSACTIONAL' } }],
    });
    const { contactId, email } = await createContact(given.dataSource, given.projectId);
    await given.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'BOUNCE')`, [given.projectId, email]);
    const started = (await startExecution(given.deps, { projectId: given.projectId, workflowId, contactId }))!;
    const ended = await until(() => execution(started.id), (row) => row.status === 'COMPLETED');
    expect(ended.context.skipped).toEqual([{ stepId: stepIds.send, reason: 'suppressed', at: expect.any(String) }]);
    expect(await sentTo(email)).toHaveLength(0);
  });

  it('fails the execution for good when the sender domain is not verified', async () => {
    const { ended, email } = await runSend({ subject: 'News', body: '<p>News</p>', from: 'news@unverified.example' });
    expect(ended.status).toBe('FAILED');
    expect(ended.error).toMatch(/unverified\.example is not verified/);
    expect(await sentTo(email)).toHaveLength(0);
  });

  it('skips an address whose whole domain is suppressed', async () => {
    const { workflowId, stepIds } = await createWorkflow(given.dataSource, given.projectId, {
      steps: [{ key: 'send', type: 'SEND_EMAIL', config: { subject: 'Receipt', body: '<p>Paid</p>', from: `billing@${given.domain}`, type: 'TRANSACTIONAL' } }],
    });
    const { contactId, email } = await createContact(given.dataSource, given.projectId, { email: `someone@${randomUUID()}.example.test` });
    await given.dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'MANUAL')`, [given.projectId, email.split('@')[1]]);
    const started = (await startExecution(given.deps, { projectId: given.projectId, workflowId, contactId }))!;
    const ended = await until(() => execution(started.id), (row) => row.status === 'COMPLETED');
    expect(ended.context.skipped).toEqual([{ stepId: stepIds.send, reason: 'suppressed', at: expect.any(String) }]);
    expect(await sentTo(email)).toHaveLength(0);
  });

  it('sends from a subdomain of a verified domain', async () => {
    const { ended, email } = await runSend({ subject: 'News', body: '<p>News</p>', from: `news@mail.${given.domain}`, type: 'TRANSACTIONAL' });
    expect(ended.status).toBe('COMPLETED');
    expect((await sentTo(email))[0]?.from).toContain(`news@mail.${given.domain}`);
  });

  /** An EmailStep of its own, and a RUNNING execution of a new one-step workflow for a new contact. */
  async function directStep() {
    const config = loadConfig(process.env);
    const contacts = new ContactsService(given.dataSource, new EventDispatcher());
    const delivery = new Delivery(given.dataSource, createMailer(config, given.dataSource), config, contacts);
    const step = new EmailStep(given.dataSource, delivery, new ExecutionRecords(given.dataSource, delivery));
    const { workflowId } = await createWorkflow(given.dataSource, given.projectId, { steps: [{ key: 'send', type: 'SEND_EMAIL' }] });
    const { contactId, email } = await createContact(given.dataSource, given.projectId);
    const [{ id: executionId }]: { id: string }[] = await given.dataSource.query(
      `INSERT INTO workflow_executions (project_id, workflow_id, contact_id, status) VALUES ($1, $2, $3, 'RUNNING') RETURNING id`,
      [given.projectId, workflowId, contactId],
    );
    return { step, email, ref: { executionId, projectId: given.projectId, workflowId, contactId, context: {} } };
  }

  it('skips the email of a contact deleted before the step, and delivers one an earlier attempt wrote although its template was deleted since', async () => {
    const { step, email, ref } = await directStep();
    const [{ id: templateId }]: { id: string }[] = await given.dataSource.query(
      `INSERT INTO templates (project_id, name, subject, body, "from", type) VALUES ($1, 'Welcome', 'Welcome', '<p>Hi</p>', $2, 'TRANSACTIONAL') RETURNING id`,
      [given.projectId, `hello@${given.domain}`],
    );
    // An earlier attempt wrote the email, then stopped before its delivery.
    await given.dataSource.query(
      `INSERT INTO emails (id, project_id, contact_id, template_id, source, type, to_email, "from", subject, body, variables, status)
       VALUES ($1, $2, $3, $4, 'WORKFLOW', 'TRANSACTIONAL', $5, $6, 'Welcome', '<p>Hi</p>', '{}', 'QUEUED')`,
      [workflowEmailId(ref.executionId, 'step-a'), given.projectId, ref.contactId, templateId, email, `hello@${given.domain}`],
    );
    await given.dataSource.query('DELETE FROM templates WHERE id = $1', [templateId]);
    expect(await step.send(ref, 'step-a', { templateId }, true)).toMatchObject({ outcome: 'SENT' });
    expect(await sentTo(email)).toHaveLength(1);
    // Not written yet, the step of a deleted template fails for good.
    await expect(step.send(ref, 'step-b', { templateId }, true)).rejects.toThrow(`Template ${templateId} no longer exists`);

    await given.dataSource.query('DELETE FROM contacts WHERE id = $1', [ref.contactId]);
    const sendConfig = { subject: 'Gone', body: '<p>Gone</p>', from: `news@${given.domain}` };
    expect(await step.send(ref, 'step-c', sendConfig, true)).toMatchObject({ outcome: 'SKIPPED', skipped: 'contact_deleted' });
    expect(await given.dataSource.query('SELECT 1 FROM emails WHERE id = $1', [workflowEmailId(ref.executionId, 'step-c')])).toHaveLength(0);
    expect(await sentTo(email)).toHaveLength(1);
  });

  it('sends a step once however often its activity runs', async () => {
    const { step, email, ref } = await directStep();
    const { executionId } = ref;
    const sendConfig = { subject: 'Once', body: '<p>Once</p>', from: `news@${given.domain}` };
    expect(await step.send(ref, 'step-a', sendConfig)).toMatchObject({ outcome: 'SENT' });
    expect(await step.send(ref, 'step-a', sendConfig)).toMatchObject({ outcome: 'ALREADY_HANDLED' });
    expect(await sentTo(email)).toHaveLength(1);
    await given.dataSource.query(`UPDATE workflow_executions SET status = 'CANCELLED' WHERE id = $1`, [executionId]);
    expect(await step.send(ref, 'step-b', sendConfig)).toMatchObject({ outcome: 'NOT_ACTIVE' });
    expect(await sentTo(email)).toHaveLength(1);
  });
});
