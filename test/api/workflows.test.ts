import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { projectWithVerifiedDomain, signupWithProject, type Client, type TestApi } from '../support/api';
import type { SesServer } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { eventually } from '../support/wait';

/** A task queue of this file's own, so workers of other test files never take its executions. */
const env = { TEMPORAL_TASK_QUEUE: 'workflows-test', WEBHOOK_ALLOW_PRIVATE: 'true' };

const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
const ACTIVE = ['RUNNING', 'WAITING'];

/** A local HTTP server recording the requests WEBHOOK steps make. */
async function startReceiver() {
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('workflows', () => {
  let stack: SesStack;
  let ses: SesServer;
  let api: TestApi;
  let client: Client;
  let key: string;
  let publicKey: string;
  let domain: string;

  beforeAll(async () => {
    stack = await startSesStack(env);
    ({ ses, api, client } = stack);
  });
  afterAll(() => stack?.close());
  beforeEach(async () => {
    const created = await projectWithVerifiedDomain(api);
    ({ key, domain } = created);
    publicKey = created.project.publicKey;
  });

  const get = (path: string) => client.get(path, { key });
  const post = (path: string, body?: unknown) => client.post(path, body, { key });
  const patch = (path: string, body: unknown) => client.patch(path, body, { key });
  const del = (path: string) => client.delete(path, { key });
  const track = (email: string, event: string, data?: Record<string, unknown>) => client.post('/v1/track', { email, event, data }, { key: publicKey });

  /** Creates a workflow and answers its id. */
  const workflow = async (body: Record<string, unknown> = {}): Promise<string> => {
    const answer = await post('/workflows', { name: 'Flow', triggerConfig: { eventName: 'signed_up' }, ...body });
    expect(answer.status).toBe(201);
    return answer.body.id;
  };
  /** Adds a step and answers its id. */
  const step = async (workflowId: string, type: string, config: Record<string, unknown> = {}, name?: string): Promise<string> => {
    const answer = await post(`/workflows/${workflowId}/steps`, { type, config, name });
    expect([answer.status, answer.body]).toEqual([201, expect.objectContaining({ type })]);
    return answer.body.id;
  };
  const link = (workflowId: string, fromStepId: string, toStepId: string, branch?: string) =>
    post(`/workflows/${workflowId}/transitions`, { fromStepId, toStepId, branch });
  /** Adds a linear chain of steps (each `[type, config]`), links them, enables the workflow; answers the step ids. */
  const chain = async (workflowId: string, steps: [string, Record<string, unknown>][], enable = true): Promise<string[]> => {
    const ids: string[] = [];
    for (const [type, config] of steps) ids.push(await step(workflowId, type, config));
    for (let i = 1; i < ids.length; i += 1) expect((await link(workflowId, ids[i - 1], ids[i])).status).toBe(201);
    if (enable) expect((await patch(`/workflows/${workflowId}`, { enabled: true })).status).toBe(200);
    return ids;
  };
  const errorFields = (answer: { body: { error: { errors: { field: string; code: string }[] } } }) =>
    answer.body.error.errors.map((error) => `${error.field}:${error.code}`);
  const executions = async (workflowId: string) =>
    api.dataSource.query('SELECT * FROM workflow_executions WHERE workflow_id = $1 ORDER BY started_at', [workflowId]);
  /** Polls the execution record until it has ended; answers it. */
  const ended = (executionId: string) =>
    eventually(async () => {
      const [row] = await api.dataSource.query('SELECT * FROM workflow_executions WHERE id = $1', [executionId]);
      return row && !ACTIVE.includes(row.status) ? row : undefined;
    }, `execution ${executionId} to end`);
  const statusIs = (executionId: string, status: string) =>
    eventually(async () => {
      const [row] = await api.dataSource.query('SELECT * FROM workflow_executions WHERE id = $1', [executionId]);
      return row?.status === status ? row : undefined;
    }, `execution ${executionId} to be ${status}`);
  const sentTo = (email: string) => ses.emails.filter((captured) => (captured.request.Destination?.ToAddresses ?? []).some((to) => to.includes(email)));
  const contactId = async (email: string) => (await post('/contacts', { email })).body.id as string;

  describe('definitions', () => {
    it('creates a disabled EVENT workflow, lists newest first, reads, updates and deletes it', async () => {
      const created = await post('/workflows', { name: 'Welcome', description: 'New sign-ups', triggerConfig: { eventName: 'signed_up' } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'Welcome',
        description: 'New sign-ups',
        triggerType: 'EVENT',
        triggerConfig: { eventName: 'signed_up' },
        enabled: false,
        allowReentry: false,
        steps: [],
        transitions: [],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const second = await workflow({ name: 'Second', allowReentry: true, triggerConfig: undefined });
      expect((await get('/workflows')).body.map((w: { id: string }) => w.id)).toEqual([second, created.body.id]);
      expect((await get(`/workflows/${second}`)).body).toMatchObject({ name: 'Second', allowReentry: true, triggerConfig: {}, description: null });

      const updated = await patch(`/workflows/${second}`, { name: 'Renamed', description: null, allowReentry: false, triggerConfig: { eventName: 'paid' } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ name: 'Renamed', description: null, allowReentry: false, triggerConfig: { eventName: 'paid' }, enabled: false });

      expect(await del(`/workflows/${second}`)).toMatchObject({ status: 200, body: { success: true } });
      expect((await get(`/workflows/${second}`)).status).toBe(404);
      expect((await get('/workflows/not-a-uuid')).status).toBe(404);
    });

    it('refuses invalid workflow bodies and hides other projects\' workflows', async () => {
      expect(errorFields(await post('/workflows', { description: 'no name' }))).toEqual(['name:required']);
      expect(errorFields(await post('/workflows', { name: '  ' }))).toEqual(['name:invalid']);
      expect(errorFields(await post('/workflows', { name: 'x', triggerType: 'CRON' }))).toEqual(['triggerType:invalid_enum_value']);
      expect(errorFields(await post('/workflows', { name: 'x', triggerConfig: { eventName: 7 } }))).toEqual(['triggerConfig.eventName:invalid_string']);
      expect(errorFields(await patch(`/workflows/${await workflow()}`, { enabled: 'yes' }))).toEqual(['enabled:invalid_type']);

      const mine = await workflow();
      const other = await signupWithProject(api);
      expect((await client.get(`/workflows/${mine}`, { key: other.project.secretKey })).status).toBe(404);
      expect((await client.post(`/workflows/${mine}/steps`, { type: 'EXIT' }, { key: other.project.secretKey })).status).toBe(404);
      expect((await client.get('/workflows', { key: publicKey })).status).toBe(401);
    });

    it('validates the config of every step type', async () => {
      const id = await workflow();
      const add = (type: string, config: unknown) => post(`/workflows/${id}/steps`, { type, config });
      const template = await post('/templates', { name: 'Hello', subject: 'Hi', body: '<p>Hi</p>', from: `hi@${domain}` });

      const good: [string, unknown, unknown?][] = [
        ['SEND_EMAIL', { templateId: template.body.id }],
        ['SEND_EMAIL', { subject: 'Hi {{ name ?? "there" }}', body: '<p>Hello</p>', from: `hi@mail.${domain}`, fromName: 'Team', type: 'TRANSACTIONAL' }],
        ['DELAY', { amount: 2, unit: 'seconds', extra: true }, { amount: 2, unit: 'seconds' }],
        ['WAIT_FOR_EVENT', { eventName: 'purchased', timeout: { amount: 3, unit: 'days' } }],
        ['CONDITION', { condition: pro }],
        ['WEBHOOK', { url: 'https://example.com/hook', method: 'put', headers: { 'X-Key': 'abc' }, body: '{"email":"{{ email }}"}' }, { url: 'https://example.com/hook', method: 'PUT', headers: { 'X-Key': 'abc' }, body: '{"email":"{{ email }}"}' }],
        ['UPDATE_CONTACT', { data: { stage: 'onboarded' }, subscribed: true }],
        ['EXIT', undefined, {}],
      ];
      for (const [type, config, stored] of good) {
        const answer = await add(type, config);
        expect([type, answer.status]).toEqual([type, 201]);
        expect(answer.body).toEqual({ id: expect.any(String), type, name: expect.any(String), config: stored ?? config, position: null });
      }

      const bad: [string, unknown, string[]][] = [
        ['SEND_EMAIL', { subject: 'Hi {{', body: '', from: 'nobody' }, ['config.subject:invalid_template', 'config.body:invalid_type', 'config.from:invalid_string'].sort()],
        ['SEND_EMAIL', { templateId: template.body.id, subject: 'Hi' }, ['config:conflicting_fields']],
        ['SEND_EMAIL', { templateId: '3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b' }, ['config.templateId:not_found']],
        ['DELAY', { amount: 0, unit: 'years' }, ['config.amount:too_small', 'config.unit:invalid_enum_value']],
        ['DELAY', { amount: 100, unit: 'weeks' }, []],
        ['WAIT_FOR_EVENT', { timeout: { amount: 1, unit: 'fortnights' } }, ['config.eventName:required', 'config.timeout.unit:invalid_enum_value']],
        ['CONDITION', { condition: { groups: [{ filters: [{ field: 'data.plan', operator: 'is', value: 1 }] }] } }, ['config.condition.groups[0].filters[0].operator:invalid_condition']],
        ['WEBHOOK', { url: 'ftp://example.com', method: 'TRACE', headers: { 'X-Key': 1 } }, ['config.url:invalid_string', 'config.method:invalid_enum_value', 'config.headers.X-Key:invalid_type']],
        ['UPDATE_CONTACT', {}, ['config:required']],
        ['UPDATE_CONTACT', { data: 'x', subscribed: 'no' }, ['config.data:invalid_type', 'config.subscribed:invalid_type']],
        ['EXIT', 'nothing', ['config:invalid_type']],
        ['TELEPORT', {}, ['type:invalid_enum_value']],
      ];
      for (const [type, config, fields] of bad) {
        const answer = await add(type, config);
        if (fields.length === 0) {
          expect([type, answer.status]).toEqual([type, 201]);
          continue;
        }
        expect([type, answer.status, answer.body.error.code]).toEqual([type, 422, 'VALIDATION_ERROR']);
        expect([type, errorFields(answer).sort()]).toEqual([type, [...fields].sort()]);
      }
      expect(errorFields(await post(`/workflows/${id}/steps`, { config: {} }))).toEqual(['type:required']);

      const unverified = await add('SEND_EMAIL', { subject: 'Hi', body: 'x', from: 'hi@unverified.example' });
      expect([unverified.status, unverified.body.error.code]).toEqual([403, 'INTERNAL_SERVER_ERROR']);

      const delay = await step(id, 'DELAY', { amount: 1, unit: 'days' });
      expect(errorFields(await patch(`/workflows/${id}/steps/${delay}`, { config: { amount: -1, unit: 'days' } }))).toEqual(['config.amount:too_small']);
      const renamed = await patch(`/workflows/${id}/steps/${delay}`, { name: 'Wait a bit', config: { amount: 5, unit: 'minutes' }, position: { x: 10, y: 20 } });
      expect(renamed.body).toEqual({ id: delay, type: 'DELAY', name: 'Wait a bit', config: { amount: 5, unit: 'minutes' }, position: { x: 10, y: 20 } });
      expect((await patch(`/workflows/${id}/steps/${delay}`, { name: 'Only the name' })).body.config).toEqual({ amount: 5, unit: 'minutes' });
      expect((await patch(`/workflows/${id}/steps/3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b`, { name: 'x' })).status).toBe(404);
    });
  });

  describe('transitions', () => {
    it('enforces branches, one transition per branch (and one unlabelled), no cycles, no self-loops and nothing out of EXIT', async () => {
      const id = await workflow();
      const condition = await step(id, 'CONDITION', { condition: pro });
      const wait = await step(id, 'WAIT_FOR_EVENT', { eventName: 'purchased' });
      const [a, b, c] = [await step(id, 'DELAY', { amount: 1, unit: 'days' }), await step(id, 'DELAY', { amount: 1, unit: 'days' }), await step(id, 'DELAY', { amount: 1, unit: 'days' })];
      const exit = await step(id, 'EXIT');

      expect(errorFields(await link(id, condition, a))).toEqual(['branch:required']);
      const yes = await link(id, condition, a, 'yes');
      expect(yes.status).toBe(201);
      expect(yes.body).toEqual({ id: expect.any(String), fromStepId: condition, toStepId: a, branch: 'yes' });
      expect(errorFields(await link(id, condition, b, 'yes'))).toEqual(['branch:duplicate_transition']);
      expect((await link(id, condition, b, 'no')).status).toBe(201);

      expect((await link(id, a, c)).status).toBe(201);
      expect(errorFields(await link(id, a, exit))).toEqual(['fromStepId:duplicate_transition']);
      expect(errorFields(await link(id, b, exit, 'yes'))).toEqual(['branch:branch_not_allowed']);
      expect(errorFields(await link(id, b, b))).toEqual(['toStepId:self_loop']);
      expect(errorFields(await link(id, c, condition))).toEqual(['toStepId:cycle']);
      expect((await link(id, c, exit)).status).toBe(201);
      expect(errorFields(await link(id, exit, wait))).toEqual(['fromStepId:exit_step']);

      expect((await link(id, wait, exit, 'yes')).status).toBe(201);
      expect((await link(id, wait, b)).status).toBe(201);
      expect(errorFields(await link(id, wait, a))).toEqual(['fromStepId:duplicate_transition']);

      const elsewhere = await step(await workflow(), 'EXIT');
      expect(errorFields(await link(id, b, elsewhere))).toEqual(['toStepId:not_found']);
      expect(errorFields(await post(`/workflows/${id}/transitions`, { fromStepId: 'x', toStepId: exit, branch: 'maybe' })).sort()).toEqual(
        ['branch:invalid_enum_value', 'fromStepId:invalid_string'].sort(),
      );

      expect(await del(`/workflows/${id}/transitions/${yes.body.id}`)).toMatchObject({ status: 200, body: { success: true } });
      expect((await del(`/workflows/${id}/transitions/${yes.body.id}`)).status).toBe(404);
      expect((await get(`/workflows/${id}`)).body.transitions).toHaveLength(5);
    });

    it('splices a deleted step out, keeping the incoming branch; without splice its transitions go', async () => {
      const id = await workflow();
      const condition = await step(id, 'CONDITION', { condition: pro });
      const middle = await step(id, 'DELAY', { amount: 1, unit: 'days' });
      const last = await step(id, 'EXIT');
      const other = await step(id, 'EXIT');
      await link(id, condition, middle, 'yes');
      await link(id, condition, other, 'no');
      await link(id, middle, last);

      expect(await del(`/workflows/${id}/steps/${middle}?splice=true`)).toMatchObject({ status: 200, body: { success: true } });
      const spliced = (await get(`/workflows/${id}`)).body;
      expect(spliced.steps.map((s: { id: string }) => s.id)).toEqual([condition, last, other]);
      expect(spliced.transitions.map((t: { fromStepId: string; toStepId: string; branch: string }) => [t.fromStepId, t.toStepId, t.branch])).toEqual(
        expect.arrayContaining([
          [condition, other, 'no'],
          [condition, last, 'yes'],
        ]),
      );

      const first = await step(id, 'DELAY', { amount: 1, unit: 'days' });
      await link(id, first, condition);
      const refused = await del(`/workflows/${id}/steps/${condition}?splice=true`);
      expect(errorFields(refused)).toEqual(['splice:several_next_steps']);

      expect((await del(`/workflows/${id}/steps/${condition}`)).status).toBe(200);
      expect((await get(`/workflows/${id}`)).body.transitions).toEqual([]);
      expect((await del(`/workflows/${id}/steps/${condition}`)).status).toBe(404);
    });
  });

  describe('enabling', () => {
    it('checks the trigger and the graph, listing every problem', async () => {
      const id = await workflow({ triggerConfig: undefined });
      expect(errorFields(await patch(`/workflows/${id}`, { enabled: true }))).toEqual(['triggerConfig.eventName:required', 'steps:no_steps']);

      await patch(`/workflows/${id}`, { triggerConfig: { eventName: 'signed_up' } });
      const condition = await step(id, 'CONDITION', { condition: pro });
      const exit = await step(id, 'EXIT');
      const stray = await step(id, 'UPDATE_CONTACT', { subscribed: false });
      const answer = await patch(`/workflows/${id}`, { enabled: true });
      expect([answer.status, answer.body.error.message]).toEqual([422, 'The workflow cannot be enabled']);
      expect(errorFields(answer)).toEqual(['steps:entry_step', `steps.${condition}:missing_branch`, `steps.${condition}:missing_branch`]);

      await link(id, condition, exit, 'yes');
      await link(id, condition, stray, 'no');
      const enabled = await patch(`/workflows/${id}`, { enabled: true });
      expect([enabled.status, enabled.body.enabled]).toEqual([200, true]);
      expect(errorFields(await patch(`/workflows/${id}`, { triggerConfig: null }))).toEqual(['triggerConfig.eventName:required']);
      expect((await patch(`/workflows/${id}`, { enabled: false, triggerConfig: null })).body).toMatchObject({ enabled: false, triggerConfig: {} });
    });
  });

  describe('references', () => {
    it('reports workflows in template, event and field usage, and lists the fields CONDITION steps can use', async () => {
      const template = (await post('/templates', { name: 'Hello', subject: 'Hi', body: '<p>Hi</p>', from: `hi@${domain}` })).body.id;
      const id = await workflow({ name: 'Onboarding' });
      const send = await step(id, 'SEND_EMAIL', { templateId: template });
      await step(id, 'WAIT_FOR_EVENT', { eventName: 'purchased' });
      await step(id, 'CONDITION', { condition: { logic: 'OR', groups: [{ filters: [{ field: 'event.clicked', operator: 'exists' }] }, ...pro.groups] } });
      await step(id, 'UPDATE_CONTACT', { data: { stage: 'done' } });
      const usage = [{ id, name: 'Onboarding' }];

      expect((await get(`/templates/${template}/usage`)).body).toEqual({ campaigns: [], workflows: [{ id, name: 'Onboarding', stepId: send }] });
      for (const name of ['signed_up', 'purchased', 'clicked']) expect((await get(`/events/${name}/usage`)).body.workflows).toEqual(usage);
      expect((await get('/events/other/usage')).body.workflows).toEqual([]);
      expect((await get('/contacts/fields/plan/usage')).body.workflows).toEqual(usage);
      expect((await get('/contacts/fields/data.stage/usage')).body.workflows).toEqual(usage);
      expect((await get('/contacts/fields/data.seats/usage')).body.workflows).toEqual([]);

      await track('fields@example.com', 'signed_up', { plan: 'pro', seats: 3 });
      const fields = (await get('/workflows/fields')).body;
      expect(fields.contact).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'email', isCustom: false }), expect.objectContaining({ field: 'data.plan', isCustom: true })]));
      expect(fields.event).toEqual([
        { field: 'event.data.plan', type: 'string' },
        { field: 'event.data.seats', type: 'number' },
      ]);
      expect((await get('/workflows/fields?eventName=purchased')).body.event).toEqual([]);
    });
  });

  describe('executions', () => {
    it('starts from /v1/track and sends the email of a SEND_EMAIL step through SES', async () => {
      const id = await workflow();
      await chain(id, [
        ['SEND_EMAIL', { subject: 'Welcome {{ name }}', body: '<p>Hi {{ name }}, plan {{ plan }}</p>', from: `hello@${domain}` }],
        ['EXIT', {}],
      ]);
      const email = `welcome-${Date.now()}@example.com`;
      expect((await track(email, 'signed_up', { name: 'Ada', plan: 'pro' })).status).toBe(200);
      const [started] = await eventually(() => executions(id).then((rows) => (rows.length > 0 ? rows : undefined)), 'an execution');
      expect((await ended(started.id)).status).toBe('EXITED');
      const [sent] = await eventually(async () => (sentTo(email).length > 0 ? sentTo(email) : undefined), 'the email');
      expect(sent.request.Content.Simple?.Subject.Data).toBe('Welcome Ada');

      const listed = await get(`/workflows/${id}/executions`);
      expect(listed.body).toMatchObject({ hasMore: false, total: 1, data: [{ id: started.id, workflowId: id, status: 'EXITED', completedAt: expect.any(String) }] });
      expect((await get(`/workflows/${id}/executions/${started.id}`)).body).toMatchObject({ id: started.id, contactId: started.contact_id });
    });

    it('calls a WEBHOOK step\'s URL with the default JSON payload', async () => {
      const receiver = await startReceiver();
      try {
        const id = await workflow({ name: 'Hook' });
        await chain(id, [['WEBHOOK', { url: `${receiver.url}/hook?x=1`, headers: { 'X-Herald-Test': 'yes' } }]], false);
        const email = `hook-${Date.now()}@example.com`;
        const contact = await contactId(email);
        const started = await post(`/workflows/${id}/executions`, { email, context: { source: 'manual' } });
        expect(started.status).toBe(201);
        expect(started.body).toMatchObject({ workflowId: id, contactId: contact, context: expect.objectContaining({ source: 'manual' }) });
        expect((await ended(started.body.id)).status).toBe('COMPLETED');
        const [request] = receiver.received;
        expect(request).toMatchObject({ method: 'POST', url: '/hook?x=1', headers: expect.objectContaining({ 'x-herald-test': 'yes' }) });
        expect(JSON.parse(request.body)).toMatchObject({ contact: { id: contact, email }, workflow: { id, name: 'Hook' }, execution: { id: started.body.id } });
      } finally {
        await receiver.close();
      }
    });

    it('lets a contact enter once unless allowReentry is set', async () => {
      for (const allowReentry of [false, true]) {
        const id = await workflow({ allowReentry });
        await chain(id, [['UPDATE_CONTACT', { data: { entered: true } }]]);
        const email = `reentry-${allowReentry}-${Date.now()}@example.com`;
        await track(email, 'signed_up');
        const [first] = await eventually(() => executions(id).then((rows) => (rows.length === 1 ? rows : undefined)), 'the first execution');
        await ended(first.id);
        await track(email, 'signed_up');
        if (allowReentry) {
          const rows = await eventually(() => executions(id).then((all) => (all.length === 2 ? all : undefined)), 'the second execution');
          await ended(rows[1].id);
        } else {
          await new Promise((resolve) => setTimeout(resolve, 500));
          expect(await executions(id)).toHaveLength(1);
          const again = await post(`/workflows/${id}/executions`, { email });
          expect([again.status, again.body.error.code]).toEqual([409, 'REENTRY_NOT_ALLOWED']);
        }
      }
    });

    it('resumes a WAIT_FOR_EVENT step when the contact tracks the event', async () => {
      const id = await workflow({ name: 'Waiter' });
      const [wait] = await chain(id, [['WAIT_FOR_EVENT', { eventName: 'purchased', timeout: { amount: 1, unit: 'hours' } }]], false);
      const done = await step(id, 'UPDATE_CONTACT', { data: { bought: true } });
      const timedOut = await step(id, 'EXIT');
      await link(id, wait, done, 'yes');
      await link(id, wait, timedOut, 'no');
      await patch(`/workflows/${id}`, { enabled: true });

      const email = `waiter-${Date.now()}@example.com`;
      await track(email, 'signed_up');
      const [execution] = await eventually(() => executions(id).then((rows) => (rows.length > 0 ? rows : undefined)), 'an execution');
      await statusIs(execution.id, 'WAITING');
      expect((await get('/activity/upcoming')).body.executions).toEqual([
        { id: execution.id, workflowId: id, workflowName: 'Waiter', contactId: execution.contact_id, currentStepId: wait, startedAt: expect.any(String) },
      ]);
      await track(email, 'purchased', { amount: 30 });
      expect((await ended(execution.id)).status).toBe('COMPLETED');
      expect((await get(`/contacts/${execution.contact_id}`)).body.data).toMatchObject({ bought: true });
    });

    it('cancels an execution through the API: CANCELLED, nothing sent, and the workflow can then be deleted', async () => {
      const id = await workflow();
      await chain(id, [
        ['DELAY', { amount: 1, unit: 'hours' }],
        ['SEND_EMAIL', { subject: 'Later', body: '<p>Later</p>', from: `hello@${domain}` }],
      ], false);
      const email = `cancel-${Date.now()}@example.com`;
      const contact = await contactId(email);
      const started = await post(`/workflows/${id}/executions`, { contactId: contact });
      expect(started.status).toBe(201);
      await statusIs(started.body.id, 'WAITING');
      const again = await post(`/workflows/${id}/executions`, { contactId: contact });
      expect([again.status, again.body.error.code]).toEqual([409, 'EXECUTION_ACTIVE']);

      const refused = await del(`/workflows/${id}`);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'WORKFLOW_ACTIVE']);

      const cancelled = await del(`/workflows/${id}/executions/${started.body.id}`);
      expect(cancelled.status).toBe(200);
      expect((await statusIs(started.body.id, 'CANCELLED')).completed_at).not.toBeNull();
      const twice = await del(`/workflows/${id}/executions/${started.body.id}`);
      expect([twice.status, twice.body.error.code]).toEqual([409, 'EXECUTION_NOT_ACTIVE']);
      expect(sentTo(email)).toEqual([]);
      expect((await del(`/workflows/${id}`)).status).toBe(200);
    });

    it('cancels every active execution with cancel-all', async () => {
      const id = await workflow();
      await chain(id, [['DELAY', { amount: 1, unit: 'hours' }], ['EXIT', {}]]);
      const emails = [1, 2, 3].map((n) => `all-${n}-${Date.now()}@example.com`);
      for (const email of emails) await track(email, 'signed_up');
      const rows = await eventually(() => executions(id).then((all) => (all.length === 3 ? all : undefined)), 'three executions');
      for (const row of rows) await statusIs(row.id, 'WAITING');
      expect((await post(`/workflows/${id}/executions/cancel-all`)).body).toEqual({ cancelled: 3 });
      for (const row of rows) await statusIs(row.id, 'CANCELLED');
      expect((await post(`/workflows/${id}/executions/cancel-all`)).body).toEqual({ cancelled: 0 });

      const page = await get(`/workflows/${id}/executions?status=cancelled&limit=2`);
      expect(page.body).toMatchObject({ total: 3, hasMore: true });
      const rest = await get(`/workflows/${id}/executions?status=CANCELLED&limit=2&cursor=${page.body.cursor}`);
      expect(rest.body).toMatchObject({ total: 0, hasMore: false });
      expect([...page.body.data, ...rest.body.data].map((e: { id: string }) => e.id).sort()).toEqual(rows.map((row: { id: string }) => row.id).sort());
      expect((await get(`/workflows/${id}/executions?status=RUNNING`)).body.data).toEqual([]);
      expect((await get(`/workflows/${id}/executions?status=bogus`)).status).toBe(400);
    });

    it('starts one execution for concurrent identical triggers', async () => {
      const id = await workflow();
      await chain(id, [['DELAY', { amount: 1, unit: 'hours' }], ['EXIT', {}]]);
      const email = `burst-${Date.now()}@example.com`;
      await contactId(email);
      const answers = await Promise.all(Array.from({ length: 6 }, () => track(email, 'signed_up')));
      expect(answers.map((answer) => answer.status)).toEqual(Array(6).fill(200));
      // The trigger follows the answers (their delivery comes after the commit): wait for its execution, then for any second one.
      await eventually(() => executions(id).then((rows) => (rows.length > 0 ? rows : undefined)), 'an execution');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await executions(id)).toHaveLength(1);
      expect((await post(`/workflows/${id}/executions/cancel-all`)).body).toEqual({ cancelled: 1 });
    });

    it('checks manual starts: one contact, an existing one, a graph that can run', async () => {
      const empty = await workflow();
      const email = `manual-${Date.now()}@example.com`;
      await contactId(email);
      expect(errorFields(await post(`/workflows/${empty}/executions`, { email }))).toEqual(['steps:no_steps']);
      const id = await workflow();
      await chain(id, [['EXIT', {}]], false);
      expect(errorFields(await post(`/workflows/${id}/executions`, {}))).toEqual(['contactId:required']);
      expect(errorFields(await post(`/workflows/${id}/executions`, { email, contactId: '3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b' }))).toEqual(['contactId:required']);
      expect(errorFields(await post(`/workflows/${id}/executions`, { email, context: [] }))).toEqual(['context:invalid_type']);
      expect((await post(`/workflows/${id}/executions`, { email: 'nobody@example.com' })).status).toBe(404);
      expect((await get(`/workflows/${id}/executions/3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b`)).status).toBe(404);
    });
  });
});
