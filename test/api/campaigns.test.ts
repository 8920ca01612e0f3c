import { randomUUID } from 'node:crypto';
import { projectWithVerifiedDomain, type Client, type TestApi } from '../support/api';
import { MailEventsPoster, sesEvent } from '../support/mail-events';
import { emailTag, type SesServer } from '../support/ses-server';
import { startSesStack, type SesStack } from '../support/stack';
import { until } from '../support/wait';
import type { TestTemporal } from '../support/worker';

const SECRET = 'campaigns-test-mail-events-secret';

/** One Herald stack (API and worker on their own task queue) in front of a local SES. */
class Stack {
  private running?: SesStack;
  ses!: SesServer;
  temporal!: TestTemporal;
  api!: TestApi;
  client!: Client;

  async start(taskQueue: string, env: Record<string, string> = {}) {
    this.running = await startSesStack({ TEMPORAL_TASK_QUEUE: taskQueue, MAIL_EVENTS_SECRET: SECRET, ...env });
    ({ ses: this.ses, temporal: this.temporal, api: this.api, client: this.client } = this.running);
  }

  stop = () => this.running?.close();

  query = (sql: string, params: unknown[] = []) => this.api.dataSource.query(sql, params);

  /** A new project whose domain is verified, with helpers bound to it. */
  async project() {
    const { project, key, domain } = await projectWithVerifiedDomain(this.api);
    return new ProjectFixture(this, project.id, key, domain);
  }
}

class ProjectFixture {
  constructor(
    private readonly stack: Stack,
    readonly id: string,
    readonly key: string,
    readonly domain: string,
  ) {}

  /** A contact inserted directly; its id. */
  async contact(email: string, options: { subscribed?: boolean; data?: Record<string, unknown> } = {}): Promise<string> {
    const [row] = await this.stack.query(
      'INSERT INTO contacts (project_id, email, subscribed, data) VALUES ($1, $2, $3, $4) RETURNING id',
      [this.id, email, options.subscribed ?? true, JSON.stringify(options.data ?? {})],
    );
    return row.id;
  }

  async contacts(count: number, prefix = 'c'): Promise<string[]> {
    const rows = await this.stack.query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, $2 || i || '@example.com', true FROM generate_series(1, $3) AS i RETURNING email`,
      [this.id, `${prefix}-${randomUUID().slice(0, 8)}-`, count],
    );
    return rows.map((row: { email: string }) => row.email).sort();
  }

  async suppress(email: string) {
    await this.stack.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'MANUAL')`, [this.id, email]);
  }

  campaign = (overrides: Record<string, unknown> = {}) => ({
    name: 'March news',
    subject: 'News for {{ email }}',
    body: '<p>Hello {{ name ?? "friend" }}</p>',
    from: `news@${this.domain}`,
    audienceType: 'ALL',
    ...overrides,
  });

  get = (path: string) => this.stack.client.get(path, { key: this.key });
  post = (path: string, body?: unknown) => this.stack.client.post(path, body, { key: this.key });
  put = (path: string, body: unknown) => this.stack.client.call('PUT', path, { key: this.key, body });
  delete = (path: string) => this.stack.client.delete(path, { key: this.key });

  /** Creates a campaign and answers its id. */
  async create(overrides: Record<string, unknown> = {}): Promise<string> {
    const answer = await this.post('/campaigns', this.campaign(overrides));
    if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data.id;
  }

  async row(campaignId: string) {
    return (await this.stack.query('SELECT * FROM campaigns WHERE id = $1', [campaignId]))[0];
  }

  /** Polls the stored campaign until its status is `status`; answers its row. */
  untilStatus(campaignId: string, status: string, timeoutMs?: number) {
    return until(() => this.row(campaignId), (row) => row.status === status, `campaign ${campaignId} to be ${status}`, timeoutMs);
  }

  /** How many SES sends each recipient of the campaign got, by address. */
  async received(campaignId: string): Promise<Record<string, number>> {
    const rows: { id: string; to_email: string }[] = await this.stack.query('SELECT id, to_email FROM emails WHERE campaign_id = $1', [campaignId]);
    const addressOf = new Map(rows.map((row) => [row.id, row.to_email]));
    const counts: Record<string, number> = {};
    for (const captured of this.stack.ses.emails) {
      const address = addressOf.get(emailTag(captured, 'emailId') ?? '');
      if (address) counts[address] = (counts[address] ?? 0) + 1;
    }
    return counts;
  }
}

const once = (addresses: string[]) => Object.fromEntries(addresses.map((address) => [address, 1]));

describe('campaigns API', () => {
  const stack = new Stack();
  let p: ProjectFixture;

  beforeAll(() => stack.start('campaigns-test'));
  afterAll(() => stack.stop());
  beforeEach(async () => {
    p = await stack.project();
  });

  it('creates a DRAFT, reads, updates, duplicates and deletes it', async () => {
    const created = await p.post('/campaigns', p.campaign({ fromName: 'News', description: 'monthly' }));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      success: true,
      data: expect.objectContaining({
        id: expect.any(String),
        name: 'March news',
        description: 'monthly',
        subject: 'News for {{ email }}',
        from: `news@${p.domain}`,
        fromName: 'News',
        replyTo: null,
        type: 'MARKETING',
        status: 'DRAFT',
        audienceType: 'ALL',
        segmentId: null,
        audienceCondition: null,
        scheduledFor: null,
        totalRecipients: 0,
        sentCount: 0,
        deliveredCount: 0,
        openedCount: 0,
        clickedCount: 0,
        bouncedCount: 0,
        complainedCount: 0,
        stoppedReason: null,
        projectId: p.id,
        sentAt: null,
      }),
    });
    const id = created.body.data.id;
    expect((await p.get(`/campaigns/${id}`)).body).toEqual(created.body.data);

    const updated = await p.put(`/campaigns/${id}`, { subject: 'Changed', type: 'TRANSACTIONAL' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, subject: 'Changed', type: 'TRANSACTIONAL', name: 'March news' });

    const copy = await p.post(`/campaigns/${id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'March news (copy)', subject: 'Changed', status: 'DRAFT', sentCount: 0 });
    expect(copy.body.id).not.toBe(id);

    expect(await p.delete(`/campaigns/${id}`)).toMatchObject({ status: 200, body: { success: true } });
    expect((await p.get(`/campaigns/${id}`)).status).toBe(404);
    expect((await p.get('/campaigns/not-a-uuid')).status).toBe(404);
    const other = await stack.project();
    expect((await other.get(`/campaigns/${copy.body.id}`)).status).toBe(404);
  });

  it('refuses invalid campaigns with 422 and an unverified sender with 403, storing nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: undefined }, 'name'],
      [{ subject: undefined }, 'subject'],
      [{ body: undefined }, 'body'],
      [{ from: 'not-an-address' }, 'from'],
      [{ audienceType: undefined }, 'audienceType'],
      [{ audienceType: 'EVERYONE' }, 'audienceType'],
      [{ audienceType: 'SEGMENT' }, 'segmentId'],
      [{ audienceType: 'SEGMENT', segmentId: randomUUID() }, 'segmentId'],
      [{ audienceType: 'FILTERED' }, 'audienceCondition'],
      [{ audienceType: 'FILTERED', audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'near', value: 1 }] }] } }, 'audienceCondition.groups[0].filters[0].operator'],
      [{ body: '{% if vip %}unclosed' }, 'body'],
    ];
    for (const [overrides, field] of cases) {
      const answer = await p.post('/campaigns', p.campaign(overrides));
      expect([field, answer.status, answer.body.error.code]).toEqual([field, 422, 'VALIDATION_ERROR']);
      expect(answer.body.error.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
    const unverified = await p.post('/campaigns', p.campaign({ from: 'me@unverified.example.org' }));
    expect(unverified.status).toBe(403);
    expect(unverified.body.error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(unverified.body.error.message).toContain('unverified.example.org');
    expect(await stack.query('SELECT 1 FROM campaigns WHERE project_id = $1', [p.id])).toHaveLength(0);

    const id = await p.create();
    expect((await p.put(`/campaigns/${id}`, { audienceType: 'FILTERED' })).status).toBe(422);
    expect((await p.put(`/campaigns/${id}`, { from: 'me@unverified.example.org' })).status).toBe(403);
    expect((await p.row(id)).audience_type).toBe('ALL');
  });

  it('lists with status filter (400 for an unknown status), search and sort', async () => {
    const alpha = await p.create({ name: 'Alpha', subject: 'Spring sale' });
    const beta = await p.create({ name: 'beta', subject: 'Summer' });
    await stack.query(`UPDATE campaigns SET status = 'SENT' WHERE id = $1`, [beta]);

    const all = await p.get('/campaigns?sort=name&dir=asc');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, pageSize: 20, total: 2, totalPages: 1 });
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual([alpha, beta]);

    expect((await p.get('/campaigns?status=SENT')).body.data.map((c: { id: string }) => c.id)).toEqual([beta]);
    expect((await p.get('/campaigns?status=draft')).body.data.map((c: { id: string }) => c.id)).toEqual([alpha]);
    const bad = await p.get('/campaigns?status=ARCHIVED');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('BAD_REQUEST');
    expect((await p.get('/campaigns?search=SPRING')).body.data.map((c: { id: string }) => c.id)).toEqual([alpha]);
    expect((await p.get(`/campaigns?search=news@${p.domain}`)).body.total).toBe(2);
    expect((await p.get('/campaigns?pageSize=1&page=2&sort=name&dir=asc')).body).toMatchObject({ data: [{ id: beta }], total: 2, totalPages: 2 });
  });

  it('sends a MARKETING campaign at once to each subscribed, non-suppressed contact exactly once', async () => {
    const subscribed = ['ada@example.com', 'bob@example.com', 'cy@example.com'];
    for (const email of subscribed) await p.contact(email);
    await p.contact('gone@example.com', { subscribed: false });
    await p.contact('bounced@example.com');
    await p.suppress('bounced@example.com');
    const id = await p.create({ subject: 'Hi {{ email }}' });

    const answer = await p.post(`/campaigns/${id}/send`, {});
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { id, name: 'March news', status: 'SENDING', scheduledFor: null }, message: 'Campaign is being sent' });
    const row = await p.untilStatus(id, 'SENT');
    expect(row).toMatchObject({ total_recipients: 3, sent_count: 3 });
    expect(row.sent_at).toBeInstanceOf(Date);
    expect(await p.received(id)).toEqual(once(subscribed));
    const emails = await stack.query('SELECT source, status, type FROM emails WHERE campaign_id = $1', [id]);
    expect(emails).toEqual(Array(3).fill({ source: 'CAMPAIGN', status: 'SENT', type: 'MARKETING' }));
    const description = await stack.temporal.client.workflow.getHandle(`campaign/${id}`).describe();
    expect(description.type).toBe('sendCampaign');

    const again = await p.post(`/campaigns/${id}/send`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
    expect((await p.put(`/campaigns/${id}`, { name: 'x' })).status).toBe(409);
    expect((await p.post(`/campaigns/${id}/cancel`)).status).toBe(409);
    expect((await p.get(`/campaigns/${id}/stats`)).body).toEqual({
      totalRecipients: 3, sent: 3, delivered: 0, opened: 0, clicked: 0, bounced: 0, complained: 0, openRate: 0, clickRate: 0, bounceRate: 0,
    });
  });

  it('sends a TRANSACTIONAL campaign to unsubscribed contacts too, never to suppressed ones', async () => {
    await p.contact('in@example.com');
    await p.contact('out@example.com', { subscribed: false });
    await p.contact('blocked@example.com', { subscribed: false });
    await p.suppress('blocked@example.com');
    const id = await p.create({ type: 'TRANSACTIONAL' });
    await p.post(`/campaigns/${id}/send`);
    expect(await p.untilStatus(id, 'SENT')).toMatchObject({ total_recipients: 2, sent_count: 2 });
    expect(await p.received(id)).toEqual(once(['in@example.com', 'out@example.com']));
  });

  it('sends to a FILTERED audience', async () => {
    await p.contact('pro1@example.com', { data: { plan: 'pro' } });
    await p.contact('pro2@example.com', { data: { plan: 'PRO' } });
    await p.contact('free@example.com', { data: { plan: 'free' } });
    const audienceCondition = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
    const id = await p.create({ audienceType: 'FILTERED', audienceCondition });
    expect((await p.get(`/campaigns/${id}`)).body.audienceCondition).toEqual(audienceCondition);
    await p.post(`/campaigns/${id}/send`);
    await p.untilStatus(id, 'SENT');
    expect(await p.received(id)).toEqual(once(['pro1@example.com', 'pro2@example.com']));
  });

  it('sends to the members of a STATIC segment and to a DYNAMIC segment', async () => {
    const member = await p.contact('member@example.com');
    const unsubscribedMember = await p.contact('quiet@example.com', { subscribed: false });
    await p.contact('outsider@example.com', { data: { vip: true } });
    const [staticSegment] = await stack.query(`INSERT INTO segments (project_id, name, slug, type) VALUES ($1, 'List', 'list', 'STATIC') RETURNING id`, [p.id]);
    await stack.query('INSERT INTO segment_members (segment_id, contact_id) VALUES ($1, $2), ($1, $3)', [staticSegment.id, member, unsubscribedMember]);
    const [dynamicSegment] = await stack.query(
      `INSERT INTO segments (project_id, name, slug, type, condition) VALUES ($1, 'VIP', 'vip', 'DYNAMIC', $2) RETURNING id`,
      [p.id, JSON.stringify({ logic: 'AND', groups: [{ filters: [{ field: 'data.vip', operator: 'equals', value: true }] }] })],
    );

    const toList = await p.create({ audienceType: 'SEGMENT', segmentId: staticSegment.id });
    const toVips = await p.create({ audienceType: 'SEGMENT', segmentId: dynamicSegment.id });
    await p.post(`/campaigns/${toList}/send`);
    await p.post(`/campaigns/${toVips}/send`);
    expect(await p.untilStatus(toList, 'SENT')).toMatchObject({ total_recipients: 1 });
    await p.untilStatus(toVips, 'SENT');
    expect(await p.received(toList)).toEqual(once(['member@example.com']));
    expect(await p.received(toVips)).toEqual(once(['outsider@example.com']));
  });

  it('schedules a send that fires in real time; a scheduled campaign can be edited but not deleted', async () => {
    await p.contact('later@example.com');
    const id = await p.create();
    // Far enough ahead for the checks made while it is SCHEDULED.
    const at = new Date(Date.now() + 4000);
    const answer = await p.post(`/campaigns/${id}/send`, { scheduledFor: at.toUTCString() });
    expect(answer.status).toBe(200);
    const iso = new Date(Math.floor(at.getTime() / 1000) * 1000).toISOString();
    expect(answer.body).toEqual({ success: true, data: { id, name: 'March news', status: 'SCHEDULED', scheduledFor: iso }, message: expect.stringContaining(iso) });
    expect((await p.delete(`/campaigns/${id}`)).status).toBe(409);
    expect((await p.put(`/campaigns/${id}`, { subject: 'Edited while scheduled' })).status).toBe(200);
    expect((await p.row(id)).status).toBe('SCHEDULED');
    expect(await p.received(id)).toEqual({});

    await p.untilStatus(id, 'SENT', 20_000);
    expect(await p.received(id)).toEqual(once(['later@example.com']));
    const [email] = await stack.query('SELECT subject, created_at FROM emails WHERE campaign_id = $1', [id]);
    expect(email.subject).toBe('Edited while scheduled');
    expect(email.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(iso));
  });

  it('cancels a scheduled campaign: nothing is sent and its workflow is cancelled', async () => {
    await p.contact('never@example.com');
    const id = await p.create();
    await p.post(`/campaigns/${id}/send`, { scheduledFor: new Date(Date.now() + 60 * 60 * 1000).toISOString() });
    const cancelled = await p.post(`/campaigns/${id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ id, status: 'CANCELLED', stoppedReason: 'Cancelled through the API' });
    const handle = stack.temporal.client.workflow.getHandle(`campaign/${id}`);
    await expect(handle.result()).rejects.toThrow();
    expect((await handle.describe()).status.name).toBe('CANCELLED');
    expect(await stack.query('SELECT 1 FROM emails WHERE campaign_id = $1', [id])).toHaveLength(0);
    expect((await p.row(id)).status).toBe('CANCELLED');
    expect((await p.post(`/campaigns/${id}/cancel`)).status).toBe(409);
    expect((await p.post(`/campaigns/${id}/send`)).status).toBe(409);
    expect((await p.delete(`/campaigns/${id}`)).status).toBe(200);
  });

  it('answers 400 to an unparseable scheduledFor, and sends at once for a past one', async () => {
    await p.contact('past@example.com');
    const id = await p.create();
    for (const scheduledFor of ['next tuesday-ish', '', true, {}]) {
      const answer = await p.post(`/campaigns/${id}/send`, { scheduledFor });
      expect([scheduledFor, answer.status, answer.body.error?.code]).toEqual([scheduledFor, 400, 'BAD_REQUEST']);
    }
    expect((await p.row(id)).status).toBe('DRAFT');
    const answer = await p.post(`/campaigns/${id}/send`, { scheduledFor: '2020-01-01T00:00:00Z' });
    expect(answer.body).toMatchObject({ data: { status: 'SENDING' }, message: 'Campaign is being sent' });
    await p.untilStatus(id, 'SENT');
    expect(await p.received(id)).toEqual(once(['past@example.com']));
  });

  it('delivers exactly once per recipient when SES fails part of the sends and batches are retried', async () => {
    const addresses = await p.contacts(40, 'retry');
    const id = await p.create();
    stack.ses.failNext(8, 500, 'InternalFailure');
    await p.post(`/campaigns/${id}/send`);
    expect(await p.untilStatus(id, 'SENT')).toMatchObject({ total_recipients: 40, sent_count: 40 });
    expect(await p.received(id)).toEqual(once(addresses));
    const statuses = await stack.query('SELECT status, count(*)::int AS n FROM emails WHERE campaign_id = $1 GROUP BY status', [id]);
    expect(statuses).toEqual([{ status: 'SENT', n: 40 }]);
    const [{ retried }] = await stack.query('SELECT count(*)::int AS retried FROM emails WHERE campaign_id = $1 AND attempts > 1', [id]);
    expect(retried).toBeGreaterThan(0);
  });

  it('goes on past recipients whose email is refused for good, recording them FAILED', async () => {
    const addresses = await p.contacts(12, 'rejected');
    const id = await p.create();
    stack.ses.failNext(2, 400, 'MessageRejected');
    await p.post(`/campaigns/${id}/send`);
    expect(await p.untilStatus(id, 'SENT')).toMatchObject({ total_recipients: 12, sent_count: 10 });
    const statuses = await stack.query('SELECT status, count(*)::int AS n FROM emails WHERE campaign_id = $1 GROUP BY status ORDER BY status', [id]);
    expect(statuses).toEqual([{ status: 'FAILED', n: 2 }, { status: 'SENT', n: 10 }]);
    expect(Object.keys(await p.received(id))).toHaveLength(10);
    expect(addresses).toHaveLength(12);
  });

  it('sends a test to one address without a contact and without moving the counters', async () => {
    const id = await p.create({ subject: 'Preview {{ name ?? "friend" }}' });
    expect((await p.post(`/campaigns/${id}/test`, { email: 'nope' })).status).toBe(422);
    const answer = await p.post(`/campaigns/${id}/test`, { email: 'Tester@Example.com' });
    expect(answer).toMatchObject({ status: 200, body: { success: true } });
    const rows: { id: string; status: string; source: string; campaign_id: string | null }[] = await until(
      () => stack.query(`SELECT id, status, source, campaign_id FROM emails WHERE project_id = $1`, [p.id]),
      (found) => found.length === 1 && found[0].status !== 'QUEUED',
      'the test email to leave QUEUED',
      15_000,
    );
    expect(rows).toEqual([{ id: expect.any(String), status: 'SENT', source: 'TEST', campaign_id: null }]);
    const captured = stack.ses.emails.find((email) => emailTag(email, 'emailId') === rows[0].id)!;
    expect(captured.request.Content.Simple!.Subject.Data).toBe('[Test] Preview friend');
    expect(captured.request.Destination!.ToAddresses).toEqual(['tester@example.com']);
    expect(await stack.query('SELECT 1 FROM contacts WHERE project_id = $1', [p.id])).toHaveLength(0);
    expect(await p.row(id)).toMatchObject({ status: 'DRAFT', sent_count: 0 });
  });

  it('moves the counters once per email from mail events, and computes the rates', async () => {
    await p.contact('one@example.com');
    await p.contact('two@example.com');
    const id = await p.create();
    await p.post(`/campaigns/${id}/send`);
    await p.untilStatus(id, 'SENT');
    const emails: { message_id: string; to_email: string }[] = await stack.query('SELECT message_id, to_email FROM emails WHERE campaign_id = $1 ORDER BY to_email', [id]);
    const [one, two] = emails.map((email) => email.message_id);
    const events = new MailEventsPoster(stack.client, SECRET);
    const notify = async (eventType: string, messageId: string, section: Record<string, unknown> = {}) => {
      expect((await events.post(sesEvent(eventType, messageId, section))).status).toBe(200);
    };
    await notify('Delivery', one);
    await notify('Delivery', two);
    await notify('Open', one);
    await notify('Open', one);
    await notify('Click', one, { link: 'https://example.com' });
    await notify('Bounce', two, { bounceType: 'Transient' });
    expect(await p.row(id)).toMatchObject({ delivered_count: 2, opened_count: 1, clicked_count: 1, bounced_count: 0 });
    await notify('Complaint', two);
    expect((await p.get(`/campaigns/${id}/stats`)).body).toEqual({
      totalRecipients: 2, sent: 2, delivered: 2, opened: 1, clicked: 1, bounced: 0, complained: 1, openRate: 0.5, clickRate: 0.5, bounceRate: 0,
    });
    expect((await p.get(`/campaigns/${id}`)).body).toMatchObject({ deliveredCount: 2, openedCount: 1, clickedCount: 1, complainedCount: 1 });
  });
});

describe('campaigns API under a send rate', () => {
  const stack = new Stack();
  let p: ProjectFixture;

  beforeAll(() => stack.start('campaigns-throttled-test', { SEND_RATE_PER_SECOND: '10' }));
  afterAll(() => stack.stop());
  beforeEach(async () => {
    p = await stack.project();
  });

  it('spreads the sends over time at the project rate', async () => {
    const addresses = await p.contacts(25, 'rate');
    const id = await p.create();
    const started = Date.now();
    await p.post(`/campaigns/${id}/send`);
    await p.untilStatus(id, 'SENT');
    // Batches of 10 at 10/s: the first two last at least a second each.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(await p.received(id)).toEqual(once(addresses));
  });

  it('sends nothing new once a campaign is cancelled during sending', async () => {
    await p.contacts(60, 'cancel');
    const id = await p.create();
    await p.post(`/campaigns/${id}/send`);
    await until(() => p.row(id), (row) => row.sent_count >= 10, 'the campaign to start sending', 20_000);
    const cancelled = await p.post(`/campaigns/${id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED' });
    const atCancel = Object.keys(await p.received(id)).length;
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const received = await p.received(id);
    const total = Object.keys(received).length;
    expect(Object.values(received).every((count) => count === 1)).toBe(true);
    expect(total - atCancel).toBeLessThanOrEqual(10);
    expect(total).toBeLessThan(60);
    const statuses: { status: string; n: number }[] = await stack.query('SELECT status, count(*)::int AS n FROM emails WHERE campaign_id = $1 GROUP BY status', [id]);
    expect(statuses.find((row) => row.status === 'QUEUED')).toBeUndefined();
    expect((await p.row(id)).status).toBe('CANCELLED');
    // The workflow ends once its batch in flight has seen the cancel (at its next heartbeat).
    const workflow = stack.temporal.client.workflow.getHandle(`campaign/${id}`);
    await until(async () => (await workflow.describe()).status.name, (status) => status === 'CANCELLED', 'the campaign workflow to end CANCELLED', 30_000);
  });
});
