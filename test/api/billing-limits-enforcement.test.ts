import { randomUUID } from 'node:crypto';
import { startExecution } from '../../src/automations/start-execution';
import { projectWithVerifiedDomain, type Client, type TestApi } from '../support/api';
import { emailTag, type SesServer } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { until } from '../support/wait';
import { createContact, createWorkflow } from '../automations/fixtures';

const env = { TEMPORAL_TASK_QUEUE: 'billing-limits-enforcement-test' };

/** The current month as the limit messages name it, e.g. "November 2026". */
const monthName = () => new Date().toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

describe('billing limits enforced by campaigns, workflows and imports', () => {
  let ses: SesServer;
  let stack: SesStack;
  let api: TestApi;
  let owner: Client;
  let key: string;
  let projectId: string;
  let domain: string;

  beforeAll(async () => {
    stack = await startSesStack(env);
    ({ api, ses } = stack);
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(api);
    ({ client: owner, key, domain } = created);
    projectId = created.project.id;
  });

  const query = (sql: string, params: unknown[] = []) => api.dataSource.query(sql, params);
  const setLimits = async (body: Record<string, number | null>) => {
    const answer = await owner.call('PUT', `/users/@me/projects/${projectId}/billing-limits`, { body });
    expect(answer.status).toBe(200);
  };
  const post = (path: string, body?: unknown) => stack.client.post(path, body, { key });
  const insertContacts = (count: number) =>
    query(`INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'c' || i || '@example.com', true FROM generate_series(1, $2) AS i`, [projectId, count]);
  const createCampaign = async () => {
    const answer = await post('/campaigns', { name: 'News', subject: 'News', body: '<p>News</p>', from: `news@${domain}`, audienceType: 'ALL' });
    expect(answer.status).toBe(201);
    return answer.body.data.id as string;
  };
  const campaignRow = async (id: string) => (await query('SELECT * FROM campaigns WHERE id = $1', [id]))[0];
  const sentFor = (emailIds: string[]) => ses.emails.filter((captured) => emailIds.includes(emailTag(captured, 'emailId') ?? ''));

  describe('campaigns', () => {
    it('sends up to the emails cap, then stops CANCELLED with the reason and queues nobody else', async () => {
      await setLimits({ emails: 8 });
      await insertContacts(20);
      const id = await createCampaign();
      expect((await post(`/campaigns/${id}/send`)).status).toBe(200);
      expect(await stack.temporal.client.workflow.getHandle(`campaign/${id}`).result()).toBe('NOT_ACTIVE');

      const campaign = (await stack.client.get(`/campaigns/${id}`, { key })).body;
      expect(campaign).toMatchObject({ status: 'CANCELLED', totalRecipients: 20, sentCount: 8 });
      expect(campaign.stoppedReason).toBe(`Stopped: the project reached its billing limit of 8 emails for ${monthName()} (8 used)`);
      const emails: { id: string; status: string }[] = await query('SELECT id, status FROM emails WHERE campaign_id = $1', [id]);
      expect(emails.map((email) => email.status)).toEqual(Array(8).fill('SENT'));
      expect(sentFor(emails.map((email) => email.id))).toHaveLength(8);
    });

    it('refuses to send, or to test, a campaign once the cap is used up: 403 and nothing changes', async () => {
      await insertContacts(3);
      const id = await createCampaign();
      await setLimits({ emails: 0 });
      const refused = await post(`/campaigns/${id}/send`);
      expect([refused.status, refused.body.error.code]).toEqual([403, 'BILLING_LIMIT_EXCEEDED']);
      expect(refused.body.error.details).toMatchObject({ category: 'emails', limit: 0, used: 0 });
      expect((await campaignRow(id)).status).toBe('DRAFT');

      const test = await post(`/campaigns/${id}/test`, { email: 'tester@example.com' });
      expect([test.status, test.body.error.code]).toEqual([403, 'BILLING_LIMIT_EXCEEDED']);
      expect(await query('SELECT 1 FROM emails WHERE project_id = $1', [projectId])).toHaveLength(0);

      await setLimits({ emails: 1 });
      expect((await post(`/campaigns/${id}/test`, { email: 'tester@example.com' })).status).toBe(200);
      expect((await post(`/campaigns/${id}/test`, { email: 'tester@example.com' })).status).toBe(403);
    });

    it('stops a campaign of a project suspended before it sends', async () => {
      await insertContacts(3);
      const id = await createCampaign();
      // Far enough ahead for the send and the suspension below to come before it.
      expect((await post(`/campaigns/${id}/send`, { scheduledFor: new Date(Date.now() + 4000).toISOString() })).status).toBe(200);
      await query(`UPDATE projects SET disabled = true, disabled_reason = 'bounce rate 12% over 7 days' WHERE id = $1`, [projectId]);
      expect(await stack.temporal.client.workflow.getHandle(`campaign/${id}`).result()).toBe('NOT_ACTIVE');
      expect(await campaignRow(id)).toMatchObject({ status: 'CANCELLED', stopped_reason: 'Stopped: the project is suspended (bounce rate 12% over 7 days)' });
      expect(await query('SELECT 1 FROM emails WHERE campaign_id = $1', [id])).toHaveLength(0);
    });
  });

  it('skips a workflow SEND_EMAIL step past the cap with reason billing_limit, and the execution goes on', async () => {
    await setLimits({ emails: 0 });
    const { workflowId, stepIds } = await createWorkflow(api.dataSource, projectId, {
      steps: [
        { key: 'send', type: 'SEND_EMAIL', config: { subject: 'Hi', body: '<p>Hi</p>', from: `hi@${domain}`, type: 'TRANSACTIONAL' } },
        { key: 'tag', type: 'UPDATE_CONTACT', config: { data: { afterSend: true } } },
      ],
      transitions: [['send', 'tag']],
    });
    const { contactId } = await createContact(api.dataSource, projectId);
    const deps = { dataSource: api.dataSource, temporal: stack.temporal.client, taskQueue: env.TEMPORAL_TASK_QUEUE };
    const started = (await startExecution(deps, { projectId, workflowId, contactId, context: {}, eventData: {} }))!;
    const ended = await until(
      async () => (await query('SELECT status, context FROM workflow_executions WHERE id = $1', [started.id]))[0],
      (row: { status: string }) => !['RUNNING', 'WAITING'].includes(row.status),
      'the execution to end',
    );
    expect(ended).toEqual({ status: 'COMPLETED', context: { skipped: [{ stepId: stepIds.send, reason: 'billing_limit', at: expect.any(String) }] } });
    expect(await query('SELECT 1 FROM emails WHERE project_id = $1', [projectId])).toHaveLength(0);
    expect((await query('SELECT data FROM contacts WHERE id = $1', [contactId]))[0].data).toEqual({ afterSend: true });
  });

  it('fails an import stopped by the contacts cap with the reason, keeping the rows of earlier chunks', async () => {
    await setLimits({ contacts: 1500 });
    const csv = ['email', ...Array.from({ length: 2500 }, (_, i) => `row${i}-${randomUUID().slice(0, 6)}@example.com`)].join('\n');
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const response = await fetch(`${api.url}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(response.status).toBe(202);
    const { jobId } = (await response.json()) as { jobId: string };

    const job = await until(
      async () => (await stack.client.get(`/contacts/import/${jobId}`, { key })).body,
      (body) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(body.status),
      'the import to end',
    );
    expect(job).toMatchObject({ status: 'FAILED', total: 2500, processed: 1000, succeeded: 1000 });
    expect(job.errors).toEqual([
      { message: 'The job failed: Billing limit exceeded: the project may store 1,500 contacts and stores 1,000; this needs 1,000 more.' },
    ]);
    expect((await query('SELECT count(*)::int AS n FROM contacts WHERE project_id = $1', [projectId]))[0].n).toBe(1000);
  });
});
