import { projectWithVerifiedDomain, type Client, type TestApi } from '../support/api';
import { startSesStack, type SesStack } from '../support/stack';
import { eventually, until } from '../support/wait';
import {
  campaignWorkflowId,
  emailWorkflowId,
  executionWorkflowId,
  jobWorkflowId,
  segmentWorkflowId,
  sendLaneWorkflowId,
} from '../../workflows/shared';
import { SEND_LANES } from '../../src/sending/send-lanes';

/** A task queue of this file's own, so workers of other test files never take its workflows. */
const env = { TEMPORAL_TASK_QUEUE: 'ui-summaries-test' };

/**
 * The one line the Temporal UI shows for each workflow Herald starts (`staticSummary`), read back
 * from the server through describe() after the real API started the workflow. The test server
 * keeps a start's user metadata, so a summary the start left out reads back as undefined.
 */
describe('Temporal UI summaries of the workflows the API starts', () => {
  let stack: SesStack;
  let api: TestApi;
  let client: Client;
  let key: string;
  let publicKey: string;
  let domain: string;
  let projectId: string;

  beforeAll(async () => {
    stack = await startSesStack(env);
    ({ api, client } = stack);
  });
  afterAll(() => stack?.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(api);
    ({ key, domain } = created);
    publicKey = created.project.publicKey;
    projectId = created.project.id;
  });

  const get = (path: string) => client.get(path, { key });
  const post = (path: string, body?: unknown) => client.post(path, body, { key });
  const patch = (path: string, body: unknown) => client.patch(path, body, { key });

  /** The workflow's type and the summary the server stored for it. */
  const described = async (workflowId: string) => {
    const description = await stack.temporal.client.workflow.getHandle(workflowId).describe();
    return { type: description.type, summary: await description.staticSummary() };
  };

  /** Polls a job until it has ended; answers its status. */
  const jobEnded = async (path: string) =>
    (await until(() => get(path), (answer) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(answer.body?.status), `job ${path} to end`)).body.status;

  /** Polls the email records until none is QUEUED. */
  const emailsSettled = (ids: string[]) =>
    until(
      () => api.dataSource.query('SELECT status FROM emails WHERE id = ANY($1::uuid[])', [ids]),
      (rows: { status: string }[]) => rows.length === ids.length && rows.every((row) => row.status !== 'QUEUED'),
      'the emails to leave QUEUED',
    );

  describe('send-lane/<taskQueue>/<lane>', () => {
    it('names what each send lane delivers', async () => {
      for (let lane = 0; lane < SEND_LANES; lane++) {
        expect(await described(sendLaneWorkflowId(env.TEMPORAL_TASK_QUEUE, lane))).toEqual({
          type: 'sendLane',
          summary: `Deliver the send queue (/v1/send, batch and SMTP relay emails), lane ${lane}`,
        });
      }
    });
  });

  describe('email/<emailId>', () => {
    /** A scheduled send (a /v1/send email sent now has no workflow of its own: the send lanes deliver it); cancelled again by `cancelled`. */
    const later = () => new Date(Date.now() + 60_000).toISOString();
    const cancelled = async (ids: string[]) => {
      for (const id of ids) expect((await post(`/emails/${id}/cancel`)).status).toBe(200);
    };

    it('names the recipient (as stored) and the subject of a scheduled /v1/send email', async () => {
      const answer = await post('/v1/send', {
        from: `hello@mail.${domain}`,
        to: ['Ada.Summary@Example.com', { name: 'Bob B', email: 'bob.summary@example.com' }],
        subject: 'Your March invoice',
        body: '<p>Hello</p>',
        scheduledAt: later(),
      });
      expect(answer.status).toBe(200);
      const [ada, bob] = answer.body.data.emails.map((email: { email: string }) => email.email);
      expect(await described(emailWorkflowId(ada))).toEqual({ type: 'deliverEmail', summary: 'Send to ada.summary@example.com: Your March invoice' });
      expect(await described(emailWorkflowId(bob))).toEqual({ type: 'deliverEmail', summary: 'Send to bob.summary@example.com: Your March invoice' });
      await cancelled([ada, bob]);
    });

    it('keeps a long subject to one line of 200 characters ending in an ellipsis', async () => {
      const subject = `Weekly digest ${'news '.repeat(60)}end`;
      const answer = await post('/v1/send', { from: `hello@mail.${domain}`, to: ['long.subject@example.com'], subject, body: '<p>Hi</p>', scheduledAt: later() });
      expect(answer.status).toBe(200);
      const [{ email: id }] = answer.body.data.emails;
      const { summary } = await described(emailWorkflowId(id));
      const line = `Send to long.subject@example.com: ${subject}`.replace(/\s+/g, ' ');
      expect(summary).toBe(`${line.slice(0, 199)}…`);
      expect(summary).toHaveLength(200);
      await cancelled([id]);
    });

    it('names the recipient and the [Test] subject of a campaign test send', async () => {
      const campaign = await post('/campaigns', { name: 'Spring sale', subject: 'Spring is here', body: '<p>Hi</p>', from: `news@${domain}`, audienceType: 'ALL' });
      expect(campaign.status).toBe(201);
      expect((await post(`/campaigns/${campaign.body.data.id}/test`, { email: 'tester@example.com' })).status).toBe(200);
      const [row] = await eventually(
        async () => {
          const rows = await api.dataSource.query(`SELECT id FROM emails WHERE project_id = $1 AND source = 'TEST'`, [projectId]);
          return rows.length > 0 ? rows : undefined;
        },
        'the test email record',
      );
      expect(await described(emailWorkflowId(row.id))).toEqual({ type: 'deliverEmail', summary: 'Send to tester@example.com: [Test] Spring is here' });
      await emailsSettled([row.id]);
    });
  });

  describe('campaign/<campaignId>', () => {
    const createCampaign = async (name: string) => {
      await api.dataSource.query(`INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, true)`, [projectId, `reader-${Date.now()}@example.com`]);
      const answer = await post('/campaigns', { name, subject: 'News', body: '<p>Hello</p>', from: `news@${domain}`, audienceType: 'ALL' });
      expect(answer.status).toBe(201);
      return answer.body.data.id as string;
    };

    it('names a campaign sent at once', async () => {
      const id = await createCampaign('March news');
      expect((await post(`/campaigns/${id}/send`, {})).status).toBe(200);
      expect(await described(campaignWorkflowId(id))).toEqual({ type: 'sendCampaign', summary: 'Campaign March news' });
      await until(
        async () => (await api.dataSource.query('SELECT status FROM campaigns WHERE id = $1', [id]))[0].status,
        (status) => status === 'SENT',
        'the campaign to be SENT',
      );
    });

    it('names a scheduled campaign with the time it waits for', async () => {
      const id = await createCampaign('April news');
      const at = new Date(Math.floor((Date.now() + 60 * 60 * 1000) / 1000) * 1000).toISOString();
      const answer = await post(`/campaigns/${id}/send`, { scheduledFor: at });
      expect(answer.body).toMatchObject({ data: { status: 'SCHEDULED', scheduledFor: at } });
      expect(await described(campaignWorkflowId(id))).toEqual({ type: 'sendCampaign', summary: `Campaign April news (scheduled for ${at})` });
      expect((await post(`/campaigns/${id}/cancel`)).status).toBe(200);
    });
  });

  describe('import/<jobId> and bulk/<jobId>', () => {
    it('names a CSV import by its file name and size in KB, rounded up', async () => {
      // 11 + 16 + 997 + 1 = 1025 bytes: just over 1 KB.
      const csv = `email,note\nada@example.com,${'x'.repeat(997)}\n`;
      expect(Buffer.byteLength(csv)).toBe(1025);
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'spring-leads.csv');
      const response = await fetch(`${api.url}/contacts/import`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
      expect(response.status).toBe(202);
      const { jobId } = (await response.json()) as { jobId: string };
      expect(await described(jobWorkflowId({ id: jobId, type: 'IMPORT' }))).toEqual({ type: 'importContacts', summary: 'Import spring-leads.csv (2 KB)' });
      expect(jobWorkflowId({ id: jobId, type: 'IMPORT' })).toBe(`import/${jobId}`);
      expect(await jobEnded(`/contacts/import/${jobId}`)).toBe('COMPLETED');
    });

    it('names a bulk job by its type and the number of distinct contacts', async () => {
      const ids: string[] = [];
      for (const email of ['bulk-a@example.com', 'bulk-b@example.com']) ids.push((await post('/contacts', { email })).body.id);
      const queued = await post('/contacts/bulk-delete', { contactIds: [ids[0], ids[1], ids[0]] });
      expect(queued.status).toBe(202);
      const { jobId } = queued.body;
      expect(await described(jobWorkflowId({ id: jobId, type: 'BULK_DELETE' }))).toEqual({ type: 'bulkContacts', summary: 'BULK_DELETE 2 contacts' });
      expect(jobWorkflowId({ id: jobId, type: 'BULK_DELETE' })).toBe(`bulk/${jobId}`);
      expect(await jobEnded(`/contacts/bulk/${jobId}`)).toBe('COMPLETED');
    });
  });

  describe('segment/<segmentId>', () => {
    it('names the segment it computes', async () => {
      await post('/contacts', { email: 'vip@example.com', data: { plan: 'pro' } });
      const condition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
      const segment = await post('/segments', { name: 'VIP customers', condition, trackMembership: true });
      expect(segment.status).toBe(201);
      const computed = await post(`/segments/${segment.body.id}/compute`);
      expect(computed.body).toEqual({ entered: 1, exited: 0, memberCount: 1 });
      expect(await described(segmentWorkflowId(segment.body.id))).toEqual({ type: 'computeSegment', summary: 'Compute segment VIP customers' });
    });
  });

  describe('wf-exec/<executionId>', () => {
    /** Creates an automation of one UPDATE_CONTACT step, triggered by `signed_up`; answers its id. */
    const automation = async (name: string, enabled: boolean) => {
      const created = await post('/workflows', { name, triggerConfig: { eventName: 'signed_up' } });
      expect(created.status).toBe(201);
      const step = await post(`/workflows/${created.body.id}/steps`, { type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } });
      expect(step.status).toBe(201);
      if (enabled) expect((await patch(`/workflows/${created.body.id}`, { enabled: true })).status).toBe(200);
      return created.body.id as string;
    };
    const executionEnded = (executionId: string) =>
      eventually(async () => {
        const [row] = await api.dataSource.query('SELECT status FROM workflow_executions WHERE id = $1', [executionId]);
        return row && !['RUNNING', 'WAITING'].includes(row.status) ? row.status : undefined;
      }, `execution ${executionId} to end`);

    it('names the automation and the contact of an execution started through the API', async () => {
      const id = await automation('Welcome series', false);
      expect((await post('/contacts', { email: 'new.member@example.com' })).status).toBe(201);
      const started = await post(`/workflows/${id}/executions`, { email: 'new.member@example.com' });
      expect(started.status).toBe(201);
      expect(await described(executionWorkflowId(started.body.id))).toEqual({
        type: 'runWorkflowExecutionV2',
        summary: 'Welcome series for new.member@example.com',
      });
      expect(await executionEnded(started.body.id)).toBe('COMPLETED');
    });

    it('names the automation and the contact of an execution an event started', async () => {
      const id = await automation('Onboarding', true);
      expect((await client.post('/v1/track', { email: 'tracked.member@example.com', event: 'signed_up' }, { key: publicKey })).status).toBe(200);
      const [execution] = await eventually(async () => {
        const rows = await api.dataSource.query('SELECT id FROM workflow_executions WHERE workflow_id = $1', [id]);
        return rows.length > 0 ? rows : undefined;
      }, 'an execution');
      // A triggered start commits the execution's record, then starts its Temporal workflow.
      expect(await until(() => described(executionWorkflowId(execution.id)), () => true, 'the execution\'s workflow')).toEqual({
        type: 'runWorkflowExecutionV2',
        summary: 'Onboarding for tracked.member@example.com',
      });
      expect(await executionEnded(execution.id)).toBe('COMPLETED');
    });
  });
});
