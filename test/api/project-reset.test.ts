import { projectWithVerifiedDomain, uniqueEmail } from '../support/api';
import { startSesStack, type SesStack } from '../support/stack';
import { eventually, until } from '../support/wait';

const TASK_QUEUE = 'project-reset-test';

describe('project reset and delete', () => {
  let stack: SesStack;

  beforeAll(async () => {
    stack = await startSesStack({ TEMPORAL_TASK_QUEUE: TASK_QUEUE });
  });
  afterAll(() => stack?.close());

  const query = (sql: string, params: unknown[] = []) => stack.api.dataSource.query(sql, params);

  /**
   * A project with one of everything: a contact, a suppressed address, a template, a segment, a
   * campaign scheduled for tomorrow and a workflow execution waiting out a 1-day DELAY. Answers the
   * owner's session client, the project id and the Temporal workflow ids of its work under way.
   */
  async function busyProject() {
    const owner = await projectWithVerifiedDomain(stack.api);
    const post = async (path: string, body: unknown, key = owner.key) => {
      const answer = await stack.client.post(path, body, { key });
      if (answer.status >= 300) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const from = `news@${owner.domain}`;
    const email = uniqueEmail('contact');
    await post('/contacts', { email, data: { plan: 'pro' } });
    await post('/suppressions', { email: 'bounced@example.com' });
    await post('/templates', { name: 'Welcome', subject: 'Hi', body: '<p>Hi</p>', from });
    await post('/segments', { name: 'Pro', condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] } });
    const { data: campaign } = await post('/campaigns', { name: 'Tomorrow', subject: 'Hi', body: '<p>Hi</p>', from, audienceType: 'ALL' });
    await post(`/campaigns/${campaign.id}/send`, { scheduledFor: new Date(Date.now() + 24 * 3600_000).toISOString() });

    const workflow = await post('/workflows', { name: 'Onboarding', triggerConfig: { eventName: 'signed_up' } });
    await post(`/workflows/${workflow.id}/steps`, { type: 'DELAY', config: { amount: 1, unit: 'days' } });
    expect((await stack.client.patch(`/workflows/${workflow.id}`, { enabled: true }, { key: owner.key })).status).toBe(200);
    await post('/v1/track', { email, event: 'signed_up' }, owner.project.publicKey);
    const execution = await eventually(async () => {
      const [row] = await query(`SELECT id FROM workflow_executions WHERE workflow_id = $1 AND status = 'WAITING'`, [workflow.id]);
      return row as { id: string } | undefined;
    }, 'the execution to wait in its DELAY');
    // The execution's record commits first; its Temporal workflow is started just after.
    await until(() => status(`wf-exec/${execution.id}`), (name) => name === 'RUNNING', 'the execution workflow to start');
    return { owner, running: [`campaign/${campaign.id}`, `wf-exec/${execution.id}`] };
  }

  /** How many rows of each table belong to the project. */
  async function rows(projectId: string): Promise<Record<string, number>> {
    const tables = ['contacts', 'events', 'emails', 'templates', 'segments', 'campaigns', 'workflows', 'workflow_executions', 'suppressions', 'domains'];
    const counts = await Promise.all(tables.map(async (table) => (await query(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0].n));
    return Object.fromEntries(tables.map((table, i) => [table, counts[i]]));
  }

  const status = async (workflowId: string) => (await stack.temporal.client.workflow.getHandle(workflowId).describe()).status.name;

  it('reset deletes contacts, events, emails, templates, segments, campaigns and workflows, cancels their Temporal workflows, and keeps suppressions and domains', async () => {
    const { owner, running } = await busyProject();
    for (const workflowId of running) expect(await status(workflowId)).toBe('RUNNING');

    const reset = await owner.client.post(`/users/@me/projects/${owner.project.id}/reset`);

    expect(reset.status).toBe(200);
    expect(await rows(owner.project.id)).toEqual({
      contacts: 0,
      events: 0,
      emails: 0,
      templates: 0,
      segments: 0,
      campaigns: 0,
      workflows: 0,
      workflow_executions: 0,
      suppressions: 1,
      domains: 1,
    });
    const suppressions = await stack.client.get('/suppressions', { key: owner.key });
    expect(JSON.stringify(suppressions.body)).toContain('bounced@example.com');
    for (const workflowId of running) {
      await eventually(async () => (await status(workflowId)) === 'CANCELLED', `${workflowId} to be cancelled`);
    }
    expect((await stack.client.get('/v1/api-key', { key: owner.key })).status).toBe(200);
  });

  it('delete removes the project and cancels the Temporal workflows of its work under way', async () => {
    const { owner, running } = await busyProject();

    expect((await owner.client.delete(`/users/@me/projects/${owner.project.id}`)).body).toEqual({ success: true });

    expect(await query('SELECT 1 FROM projects WHERE id = $1', [owner.project.id])).toEqual([]);
    for (const workflowId of running) {
      await eventually(async () => (await status(workflowId)) === 'CANCELLED', `${workflowId} to be cancelled`);
    }
  });
});
