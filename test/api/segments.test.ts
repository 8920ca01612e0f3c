import { signupWithProject, type Client, type TestApi } from '../support/api';
import { startTestStack, type TestStack } from '../support/stack';
import { until } from '../support/wait';

/** A task queue of this file's own, so workers of other test files never take its workflows. */
const env = { TEMPORAL_TASK_QUEUE: 'segments-test' };

const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

/** Polls until `check` returns a truthy value, for at most `timeoutMs`. */
async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('segments', () => {
  let stack: TestStack;
  let api: TestApi;
  let client: Client;
  let key: string;
  let projectId: string;

  beforeAll(async () => {
    stack = await startTestStack(env);
    ({ api, client } = stack);
  });
  afterAll(() => stack.close());
  beforeEach(async () => {
    const { project } = await signupWithProject(api);
    key = project.secretKey;
    projectId = project.id;
  });

  const post = (path: string, body?: unknown) => client.post(path, body, { key });
  const get = (path: string) => client.get(path, { key });
  const upsert = async (email: string, data: Record<string, unknown> = {}, subscribed?: boolean) =>
    (await post('/contacts', { email, data, subscribed })).body.id as string;
  const create = async (body: Record<string, unknown>) => {
    const answer = await post('/segments', body);
    expect(answer.status).toBe(201);
    return answer.body;
  };
  /** The contact ids with an event of that name in the current project, in the order stored. */
  const eventContacts = async (name: string): Promise<string[]> =>
    (
      await api.dataSource.query('SELECT contact_id FROM events WHERE project_id = $1 AND name = $2 ORDER BY created_at, contact_id', [
        projectId,
        name,
      ])
    ).map((row: { contact_id: string }) => row.contact_id);
  const slugOf = async (id: string): Promise<string> => (await api.dataSource.query('SELECT slug FROM segments WHERE id = $1', [id]))[0].slug;

  describe('CRUD and validation', () => {
    it('creates a DYNAMIC segment with its member count, lists newest first, reads, updates and deletes it', async () => {
      await upsert('ada@example.com', { plan: 'pro' });
      await upsert('bob@example.com', { plan: 'PRO' });
      await upsert('cy@example.com', { plan: 'free' });
      const vip = await create({ name: 'VIP Customers!', description: 'Paying', condition: pro });
      expect(vip).toEqual({
        id: expect.any(String),
        name: 'VIP Customers!',
        description: 'Paying',
        type: 'DYNAMIC',
        condition: pro,
        trackMembership: false,
        memberCount: 2,
        projectId,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(await slugOf(vip.id)).toBe('vip-customers');
      const list = await create({ name: 'Newsletter', type: 'STATIC', condition: pro });
      expect(list).toMatchObject({ type: 'STATIC', condition: null, memberCount: 0, description: null });

      const listed = await get('/segments');
      expect(listed.status).toBe(200);
      expect(listed.body.map((segment: { id: string }) => segment.id)).toEqual([list.id, vip.id]);
      expect((await get(`/segments/${vip.id}`)).body).toEqual(vip);

      const free = { logic: 'OR', groups: [{ filters: [{ field: 'data.plan', operator: 'in', value: ['free'] }] }] };
      const patched = await client.patch(`/segments/${vip.id}`, { name: 'Free plan', description: null, condition: free }, { key });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Free plan', description: null, condition: free, memberCount: 1 });
      expect(await slugOf(vip.id)).toBe('vip-customers');
      expect((await client.patch(`/segments/${list.id}`, { condition: pro }, { key })).body.condition).toBeNull();

      expect((await client.delete(`/segments/${vip.id}`, { key })).body).toEqual({ success: true });
      expect((await get(`/segments/${vip.id}`)).status).toBe(404);
      expect((await get('/segments/not-a-uuid')).status).toBe(404);
    });

    it('answers a missing name or condition with the bare { error } body and an invalid tree with 422', async () => {
      for (const body of [{}, { name: '  ', condition: pro }, { condition: pro }]) {
        const answer = await post('/segments', body);
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ error: 'name is required' });
      }
      for (const condition of [undefined, null, 'plan = pro', [pro]]) {
        const answer = await post('/segments', { name: 'No condition', condition });
        expect(answer.status).toBe(400);
        expect(answer.body).toEqual({ error: expect.stringMatching(/condition/) });
      }
      const tree = await post('/segments', {
        name: 'Bad tree',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'is', value: 'pro' }] }] },
      });
      expect(tree.status).toBe(422);
      expect(tree.body.error).toMatchObject({
        code: 'VALIDATION_ERROR',
        errors: [expect.objectContaining({ field: 'condition.groups[0].filters[0].operator', code: 'invalid_condition' })],
      });
      for (const body of [
        { name: 'x'.repeat(101), condition: pro },
        { name: 'Long', description: 'x'.repeat(501), condition: pro },
        { name: 'Kind', type: 'SMART', condition: pro },
        { name: 'Track', trackMembership: 'yes', condition: pro },
      ]) {
        expect((await post('/segments', body)).status).toBe(422);
      }
      expect((await get('/segments')).body).toEqual([]);
      const segment = await create({ name: 'Fine', condition: pro });
      expect((await client.patch(`/segments/${segment.id}`, { name: '' }, { key })).body).toEqual({ error: 'name is required' });
      expect((await client.patch(`/segments/${segment.id}`, { condition: null }, { key })).status).toBe(400);
      expect((await client.patch(`/segments/${segment.id}`, { condition: { groups: 'all' } }, { key })).status).toBe(422);
    });

    it('gives segments whose names slug the same the suffixes -2, -3', async () => {
      const first = await create({ name: 'VIP', type: 'STATIC' });
      const second = await create({ name: 'vip!', type: 'STATIC' });
      const third = await create({ name: ' V.I.P ', type: 'STATIC' });
      const empty = await create({ name: '!!!', type: 'STATIC' });
      expect([await slugOf(first.id), await slugOf(second.id), await slugOf(third.id), await slugOf(empty.id)]).toEqual([
        'vip',
        'vip-2',
        'v-i-p',
        'segment',
      ]);
    });

    it('refuses to delete a segment a SCHEDULED campaign uses (409 SEGMENT_IN_USE)', async () => {
      const segment = await create({ name: 'Audience', condition: pro });
      const [campaign] = await api.dataSource.query(
        `INSERT INTO campaigns (project_id, name, subject, body, "from", type, status, audience_type, segment_id)
         VALUES ($1, 'Launch', 'Hi', '<p>Hi</p>', 'hi@example.com', 'MARKETING', 'SCHEDULED', 'SEGMENT', $2) RETURNING id`,
        [projectId, segment.id],
      );
      const refused = await client.delete(`/segments/${segment.id}`, { key });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('SEGMENT_IN_USE');
      expect((await get(`/segments/${segment.id}`)).status).toBe(200);
      await api.dataSource.query(`UPDATE campaigns SET status = 'SENT' WHERE id = $1`, [campaign.id]);
      expect((await client.delete(`/segments/${segment.id}`, { key })).status).toBe(200);
    });

    it('reports the segments that reference a field or an event', async () => {
      const segment = await create({
        name: 'Buyers',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.purchase', operator: 'exists' }, { field: 'data.plan', operator: 'exists' }] }] },
      });
      await create({ name: 'Others', condition: pro });
      await create({ name: 'Emails', condition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'endsWith', value: '.org' }] }] } });
      expect((await get('/events/purchase/usage')).body.segments).toEqual([{ id: segment.id, name: 'Buyers' }]);
      expect((await get('/contacts/fields/plan/usage')).body.segments.map((used: { name: string }) => used.name)).toEqual(['Others', 'Buyers']);
      expect((await get('/contacts/fields/data.seats/usage')).body.segments).toEqual([]);
    });
  });

  describe('contacts and counts', () => {
    it('pages the live contacts of a DYNAMIC segment, newest first', async () => {
      const ids = [];
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) ids.push(await upsert(email, { plan: 'pro' }));
      await upsert('d@example.com', { plan: 'free' });
      const segment = await create({ name: 'Pro', condition: pro });
      const first = await get(`/segments/${segment.id}/contacts?pageSize=2`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
      expect(first.body.data.map((contact: { id: string }) => contact.id)).toEqual([ids[2], ids[1]]);
      expect(Object.keys(first.body.data[0]).sort()).toEqual(['createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'updatedAt']);
      const second = await get(`/segments/${segment.id}/contacts?page=2&pageSize=2`);
      expect(second.body.data.map((contact: { id: string }) => contact.id)).toEqual([ids[0]]);
      expect((await get(`/segments/${segment.id}/contacts?pageSize=500`)).body.pageSize).toBe(100);

      const late = await upsert('e@example.com', { plan: 'pro' });
      expect((await get(`/segments/${segment.id}/contacts`)).body.data[0].id).toBe(late);
    });

    it('refreshes the cached count only: no events, no stored membership', async () => {
      await upsert('one@example.com', { plan: 'pro' });
      const segment = await create({ name: 'Pro', condition: pro });
      expect(segment.memberCount).toBe(1);
      await upsert('two@example.com', { plan: 'pro' });
      await upsert('three@example.com', { plan: 'free' });
      expect((await get(`/segments/${segment.id}`)).body.memberCount).toBe(1);
      expect((await post(`/segments/${segment.id}/refresh`)).body).toEqual({ memberCount: 2 });
      expect((await get(`/segments/${segment.id}`)).body.memberCount).toBe(2);

      const tracked = await create({ name: 'Tracked', condition: pro, trackMembership: true });
      expect((await post(`/segments/${tracked.id}/refresh`)).body).toEqual({ memberCount: 2 });
      expect(await api.dataSource.query('SELECT 1 FROM segment_members WHERE segment_id = ANY($1::uuid[])', [[segment.id, tracked.id]])).toEqual([]);
      expect(await api.dataSource.query(`SELECT 1 FROM events WHERE project_id = $1 AND name LIKE 'segment.%'`, [projectId])).toEqual([]);
    });
  });

  describe('STATIC members', () => {
    it('adds by email, reports existing members and unknown emails, creates missing contacts when asked, and removes', async () => {
      const ada = await upsert('ada@example.com');
      const segment = await create({ name: 'Beta testers', type: 'STATIC' });

      const added = await post(`/segments/${segment.id}/members`, { emails: ['ADA@example.com', 'ghost@example.com', 'ada@example.com'] });
      expect(added.status).toBe(200);
      expect(added.body).toEqual({ added: 1, alreadyMembers: 0, created: 0, notFound: ['ghost@example.com'] });
      expect((await api.dataSource.query(`SELECT 1 FROM contacts WHERE email = 'ghost@example.com'`)).length).toBe(0);

      const again = await post(`/segments/${segment.id}/members`, { emails: ['ada@example.com', 'New@example.com'], createMissing: true, subscribed: false });
      expect(again.body).toEqual({ added: 1, alreadyMembers: 1, created: 1, notFound: [] });
      const [created] = await api.dataSource.query(`SELECT id, subscribed FROM contacts WHERE project_id = $1 AND email = 'new@example.com'`, [projectId]);
      expect(created.subscribed).toBe(false);
      await post(`/segments/${segment.id}/members`, { emails: ['sub@example.com'], createMissing: true });
      expect((await api.dataSource.query(`SELECT subscribed FROM contacts WHERE email = 'sub@example.com'`))[0].subscribed).toBe(true);

      expect((await get(`/segments/${segment.id}`)).body.memberCount).toBe(3);
      const page = await get(`/segments/${segment.id}/contacts`);
      expect(page.body.total).toBe(3);
      expect(page.body.data.map((contact: { email: string }) => contact.email)).toEqual(['sub@example.com', 'new@example.com', 'ada@example.com']);

      const removed = await client.delete(`/segments/${segment.id}/members`, { key, body: { emails: ['Ada@example.com', 'ghost@example.com'] } });
      expect(removed.body).toEqual({ removed: 1 });
      expect((await get(`/segments/${segment.id}`)).body.memberCount).toBe(2);
      expect((await get(`/segments/${segment.id}/contacts`)).body.data.map((contact: { id: string }) => contact.id)).not.toContain(ada);
      expect((await post(`/segments/${segment.id}/refresh`)).body).toEqual({ memberCount: 2 });
    });

    it('refuses member changes on a DYNAMIC segment (400) and bad email lists (422)', async () => {
      const dynamic = await create({ name: 'Pro', condition: pro });
      expect((await post(`/segments/${dynamic.id}/members`, { emails: ['a@example.com'] })).status).toBe(400);
      expect((await client.delete(`/segments/${dynamic.id}/members`, { key, body: { emails: ['a@example.com'] } })).status).toBe(400);
      const list = await create({ name: 'List', type: 'STATIC' });
      for (const emails of [[], ['not-an-email'], Array.from({ length: 1001 }, (_, i) => `u${i}@example.com`), 'a@example.com']) {
        expect((await post(`/segments/${list.id}/members`, { emails })).status).toBe(422);
      }
    });
  });

  describe('tracked membership', () => {
    it('computes through workflow segment/<id>: an entry event for every member first, then one event per change', async () => {
      const ada = await upsert('ada@example.com', { plan: 'pro' });
      const bob = await upsert('bob@example.com', { plan: 'pro' });
      await upsert('cy@example.com', { plan: 'free' });
      const segment = await create({ name: 'VIP', condition: pro, trackMembership: true });

      const first = await post(`/segments/${segment.id}/compute`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ entered: 2, exited: 0, memberCount: 2 });
      expect((await eventContacts('segment.vip.entry')).sort()).toEqual([ada, bob].sort());
      const [entry] = await api.dataSource.query(`SELECT source, data FROM events WHERE contact_id = $1 AND name = 'segment.vip.entry'`, [ada]);
      expect(entry).toEqual({ source: 'SYSTEM', data: { segmentId: segment.id, segmentName: 'VIP' } });
      const description = await stack.temporal.client.workflow.getHandle(`segment/${segment.id}`).describe();
      expect(description.type).toBe('computeSegment');

      expect((await post(`/segments/${segment.id}/compute`)).body).toEqual({ entered: 0, exited: 0, memberCount: 2 });
      expect(await eventContacts('segment.vip.entry')).toHaveLength(2);

      // Changed behind the service's back, so only a full computation sees it.
      await api.dataSource.query(`UPDATE contacts SET data = '{"plan":"free"}' WHERE id = $1`, [bob]);
      await api.dataSource.query(`UPDATE contacts SET data = '{"plan":"pro"}' WHERE project_id = $1 AND email = 'cy@example.com'`, [projectId]);
      expect((await post(`/segments/${segment.id}/compute`)).body).toEqual({ entered: 1, exited: 1, memberCount: 2 });
      expect(await eventContacts('segment.vip.exit')).toEqual([bob]);
      expect(await eventContacts('segment.vip.entry')).toHaveLength(3);
      expect((await get(`/segments/${segment.id}`)).body.memberCount).toBe(2);

      await client.patch(`/segments/${segment.id}`, { trackMembership: false }, { key });
      expect((await post(`/segments/${segment.id}/compute`)).status).toBe(400);
      await client.patch(`/segments/${segment.id}`, { trackMembership: true }, { key });
      expect((await post(`/segments/${segment.id}/compute`)).body).toEqual({ entered: 2, exited: 0, memberCount: 2 });
    });

    it('runs concurrent computations once each change: no contact gets two entry events', async () => {
      for (let i = 0; i < 30; i++) await upsert(`c${i}@example.com`, { plan: 'pro' });
      const segment = await create({ name: 'Many', condition: pro, trackMembership: true });
      const answers = await Promise.all([post(`/segments/${segment.id}/compute`), post(`/segments/${segment.id}/compute`)]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
      expect(answers.reduce((sum, answer) => sum + answer.body.entered, 0)).toBeGreaterThanOrEqual(30);
      const events = await eventContacts('segment.many.entry');
      expect(events).toHaveLength(30);
      expect(new Set(events).size).toBe(30);
    });

    it('moves large differences page by page', async () => {
      await api.dataSource.query(
        `INSERT INTO contacts (project_id, email, subscribed, data)
         SELECT $1, 'bulk' || n || '@example.com', true, jsonb_build_object('plan', 'pro') FROM generate_series(1, 2500) AS n`,
        [projectId],
      );
      const segment = await create({ name: 'Bulk', condition: pro, trackMembership: true });
      expect((await post(`/segments/${segment.id}/compute`)).body).toEqual({ entered: 2500, exited: 0, memberCount: 2500 });
      await api.dataSource.query(
        `UPDATE contacts SET data = '{"plan":"free"}' WHERE id IN (SELECT id FROM contacts WHERE project_id = $1 ORDER BY email LIMIT 1200)`,
        [projectId],
      );
      expect((await post(`/segments/${segment.id}/compute`)).body).toEqual({ entered: 0, exited: 1200, memberCount: 1300 });
      const entries = await eventContacts('segment.bulk.entry');
      const exits = await eventContacts('segment.bulk.exit');
      expect([entries.length, new Set(entries).size, exits.length, new Set(exits).size]).toEqual([2500, 2500, 1200, 1200]);
    });

    it('re-evaluates a contact within seconds when its data changes through POST /contacts', async () => {
      const segment = await create({ name: 'VIP', condition: pro, trackMembership: true });
      await post(`/segments/${segment.id}/compute`);
      const ada = await upsert('ada@example.com', { plan: 'pro' });
      expect(await eventually(async () => (await eventContacts('segment.vip.entry')).length === 1)).toBe(true);
      expect(await eventContacts('segment.vip.entry')).toEqual([ada]);
      await upsert('ada@example.com', { seats: 3 });
      await upsert('ada@example.com', { plan: 'free' });
      expect(await eventually(async () => (await eventContacts('segment.vip.exit')).length === 1)).toBe(true);
      await upsert('ada@example.com', { plan: 'free' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await eventContacts('segment.vip.entry')).toEqual([ada]);
      expect(await eventContacts('segment.vip.exit')).toEqual([ada]);
    });

    it('re-evaluates on /v1/track (data and events) and on subscription flips', async () => {
      const buyers = await create({
        name: 'Buyers',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'event.purchase', operator: 'exists' }] }] },
        trackMembership: true,
      });
      const subscribers = await create({
        name: 'Subscribed pros',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'subscribed', operator: 'equals', value: true }, { field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
        trackMembership: true,
      });
      const tracked = await post('/v1/track', { email: 'eve@example.com', event: 'purchase', data: { plan: 'pro' } });
      expect(tracked.status).toBe(200);
      const eve = tracked.body.data.contact;
      // The segments are re-evaluated once the tracked event is delivered, just after the answer.
      await until(() => eventContacts('segment.buyers.entry'), (ids) => ids.length === 1, 'the entry into Buyers');
      await until(() => eventContacts('segment.subscribed-pros.entry'), (ids) => ids.length === 1, 'the entry into Subscribed pros');

      await post('/v1/track', { email: 'eve@example.com', event: 'visit', data: { plan: 'free' } });
      await until(() => eventContacts('segment.subscribed-pros.exit'), (ids) => ids.length === 1, 'the exit from Subscribed pros');
      await post('/v1/track', { email: 'eve@example.com', event: 'visit', data: { plan: 'pro' } });
      await until(() => eventContacts('segment.subscribed-pros.entry'), (ids) => ids.length === 2, 'the second entry into Subscribed pros');

      expect((await client.patch(`/contacts/${eve}`, { subscribed: false }, { key })).status).toBe(200);
      expect(await eventually(async () => (await eventContacts('segment.subscribed-pros.exit')).length === 2)).toBe(true);
      expect(await eventContacts('segment.buyers.exit')).toEqual([]);
      expect((await post(`/segments/${buyers.id}/compute`)).body).toEqual({ entered: 0, exited: 0, memberCount: 1 });
      expect((await post(`/segments/${subscribers.id}/compute`)).body).toEqual({ entered: 0, exited: 0, memberCount: 0 });
    });

    it('records entry and exit events for a tracked STATIC segment as members are added and removed', async () => {
      const segment = await create({ name: 'Early', type: 'STATIC', trackMembership: true });
      await post(`/segments/${segment.id}/members`, { emails: ['a@example.com', 'b@example.com'], createMissing: true });
      await post(`/segments/${segment.id}/members`, { emails: ['a@example.com'] });
      await client.delete(`/segments/${segment.id}/members`, { key, body: { emails: ['a@example.com'] } });
      expect(await eventContacts('segment.early.entry')).toHaveLength(2);
      expect(await eventContacts('segment.early.exit')).toHaveLength(1);
      expect((await post(`/segments/${segment.id}/compute`)).status).toBe(400);
    });

    it('recomputes every tracked segment in recomputeTrackedSegments (the schedule workflow)', async () => {
      const ada = await upsert('ada@example.com', { plan: 'pro' });
      const segment = await create({ name: 'Scheduled', condition: pro, trackMembership: true });
      const summary = await stack.temporal.client.workflow.execute('recomputeTrackedSegments', {
        taskQueue: env.TEMPORAL_TASK_QUEUE,
        workflowId: `segment-recompute-test-${segment.id}`,
      });
      expect(summary).toMatchObject({ failed: 0 });
      expect(summary.segments).toBeGreaterThanOrEqual(1);
      expect(await eventContacts('segment.scheduled.entry')).toEqual([ada]);
    });
  });

  it('keeps projects apart', async () => {
    const other = (await signupWithProject(api)).project;
    await client.post('/contacts', { email: 'theirs@example.com', data: { plan: 'pro' } }, { key: other.secretKey });
    const theirs = (await client.post('/segments', { name: 'VIP', condition: pro, trackMembership: true }, { key: other.secretKey })).body;
    const mine = await create({ name: 'VIP', condition: pro, trackMembership: true });
    expect(mine.memberCount).toBe(0);
    expect(await slugOf(mine.id)).toBe('vip');
    expect((await get(`/segments/${theirs.id}`)).status).toBe(404);
    expect((await get(`/segments/${theirs.id}/contacts`)).status).toBe(404);
    expect((await post(`/segments/${theirs.id}/refresh`)).status).toBe(404);
    expect((await client.delete(`/segments/${theirs.id}`, { key })).status).toBe(404);
    expect((await get('/segments')).body.map((segment: { id: string }) => segment.id)).toEqual([mine.id]);
    const contact = await upsert('mine@example.com', { plan: 'pro' });
    expect(await eventContacts('segment.vip.entry')).toEqual([contact]);
    expect((await post(`/segments/${mine.id}/compute`)).body).toEqual({ entered: 0, exited: 0, memberCount: 1 });
    expect((await client.post(`/segments/${theirs.id}/compute`, undefined, { key: other.secretKey })).body).toEqual({ entered: 1, exited: 0, memberCount: 1 });
    const [{ count }] = await api.dataSource.query(`SELECT count(*)::int AS count FROM events WHERE project_id = $1 AND name = 'segment.vip.entry'`, [other.id]);
    expect(count).toBe(1);
  });
});
