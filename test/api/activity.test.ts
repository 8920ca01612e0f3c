import { signupWithProject } from '../support/api';
import { useSignedUpProject } from '../support/stack';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The start of today (UTC) plus `days` days, as a Date. */
const dayStart = (days = 0) => new Date(Math.floor(Date.now() / DAY) * DAY + days * DAY);
const ago = (ms: number) => new Date(Date.now() - ms);

describe('activity and analytics', () => {
  const given = useSignedUpProject();

  const get = (path: string, key = given.project.secretKey) => given.client.get(path, { key });
  const sql = (text: string, params: unknown[]) => given.api.dataSource.query(text, params).then((rows: { id: string }[]) => rows[0]?.id);

  /** Rows written straight to the tables, as sending, mail events and campaigns would. */
  const seed = {
    contact: (email: string, projectId = given.project.id) =>
      sql('INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, true) RETURNING id', [projectId, email]),
    campaign: (fields: Record<string, unknown> = {}, projectId = given.project.id) => {
      const row = { name: 'Campaign', status: 'SENT', scheduled_for: null, created_at: new Date(), ...fields };
      const columns = Object.keys(row);
      return sql(
        `INSERT INTO campaigns (project_id, subject, body, "from", type, audience_type, ${columns.join(', ')})
         VALUES ($1, 'Hi', 'Body', 'news@example.com', 'MARKETING', 'ALL', ${columns.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING id`,
        [projectId, ...Object.values(row)],
      );
    },
    email: (fields: Record<string, unknown> = {}, projectId = given.project.id) => {
      const row = { subject: 'Hello', status: 'SENT', created_at: new Date(), ...fields };
      const columns = Object.keys(row);
      return sql(
        `INSERT INTO emails (project_id, source, type, to_email, "from", body, ${columns.join(', ')})
         VALUES ($1, 'SEND', 'TRANSACTIONAL', 'to@example.com', 'news@example.com', 'Body', ${columns.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING id`,
        [projectId, ...Object.values(row)],
      );
    },
    event: (name: string, fields: { contactId?: string; emailId?: string; at?: Date; source?: string } = {}, projectId = given.project.id) =>
      sql(
        'INSERT INTO events (project_id, contact_id, name, data, source, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
        [
          projectId,
          fields.contactId ?? null,
          name,
          fields.emailId ? { emailId: fields.emailId, subject: 'From the event' } : {},
          fields.source ?? (name.startsWith('email.') ? 'SYSTEM' : 'API'),
          fields.at ?? new Date(),
        ],
      ),
  };

  describe('GET /activity', () => {
    it('lists the email.* events newest first, with their contact, email, campaign and subject', async () => {
      const contactId = await seed.contact('ada@example.com');
      const campaignId = await seed.campaign();
      const emailId = await seed.email({ contact_id: contactId, campaign_id: campaignId, subject: 'Spring sale' });
      const sent = await seed.event('email.sent', { contactId, emailId, at: ago(3 * HOUR) });
      const opened = await seed.event('email.opened', { contactId, emailId, at: ago(HOUR) });
      const received = await seed.event('email.received', { at: ago(2 * HOUR) });
      await seed.event('signed_up', { contactId });
      await seed.event('contact.subscribed', { contactId, source: 'SYSTEM' });

      const answer = await get('/activity');
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({
        data: [
          {
            id: opened,
            type: 'email.opened',
            contact: { id: contactId, email: 'ada@example.com' },
            emailId,
            campaignId,
            subject: 'Spring sale',
            createdAt: expect.any(String),
          },
          { id: received, type: 'email.received', contact: null, emailId: null, campaignId: null, subject: null, createdAt: expect.any(String) },
          expect.objectContaining({ id: sent, type: 'email.sent', emailId, campaignId }),
        ],
        cursor: null,
        hasMore: false,
        total: 3,
      });
      expect(Date.parse(answer.body.data[0].createdAt)).toBeGreaterThan(Date.parse(answer.body.data[1].createdAt));
    });

    it('pages with the cursor until the last entry, counting the total on the first page only', async () => {
      const base = Date.now() - DAY;
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) ids.push(await seed.event('email.delivered', { at: new Date(base + i * 1000) }));
      const same = new Date(base + 10_000);
      ids.push(await seed.event('email.clicked', { at: same }), await seed.event('email.clicked', { at: same }));

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const answer = await get(`/activity?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        expect(answer.status).toBe(200);
        expect(answer.body.total).toBe(pages === 0 ? 7 : 0);
        seen.push(...answer.body.data.map((entry: { id: string }) => entry.id));
        ({ cursor } = answer.body);
        expect(answer.body.hasMore).toBe(cursor !== null);
        pages += 1;
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toHaveLength(7);
      expect(new Set(seen)).toEqual(new Set(ids));
      expect(seen.slice(2)).toEqual(ids.slice(0, 5).reverse());
    });

    it('filters by type, contact and campaign', async () => {
      const ada = await seed.contact('ada@example.com');
      const bob = await seed.contact('bob@example.com');
      const campaignId = await seed.campaign();
      const campaignEmail = await seed.email({ contact_id: ada, campaign_id: campaignId });
      const otherEmail = await seed.email({ contact_id: bob });
      const adaOpened = await seed.event('email.opened', { contactId: ada, emailId: campaignEmail });
      const adaSent = await seed.event('email.sent', { contactId: ada, emailId: campaignEmail, at: ago(HOUR) });
      const bobSent = await seed.event('email.sent', { contactId: bob, emailId: otherEmail, at: ago(HOUR) });

      const ids = async (query: string) => (await get(`/activity?${query}`)).body.data.map((entry: { id: string }) => entry.id);
      expect(await ids('type=email.sent')).toEqual(expect.arrayContaining([adaSent, bobSent]));
      expect(await ids('type=email.sent')).toHaveLength(2);
      expect(await ids(`contactId=${bob}`)).toEqual([bobSent]);
      expect(await ids(`campaignId=${campaignId}`)).toEqual([adaOpened, adaSent]);
      expect(await ids(`campaignId=${campaignId}&type=email.sent&contactId=${ada}`)).toEqual([adaSent]);
      expect((await get(`/activity?campaignId=${campaignId}`)).body.total).toBe(2);
    });

    it('answers 400 for an unknown type, a filter that is not a UUID or a cursor that is not a feed position', async () => {
      for (const query of ['type=signed_up', 'type=email.sent&type=email.opened', 'contactId=nope', 'campaignId=123', 'cursor=!!', `cursor=${Buffer.from('{"v":"x","id":"y"}').toString('base64url')}`]) {
        const answer = await get(`/activity?${query}`);
        expect([query, answer.status, answer.body.error?.code]).toEqual([query, 400, 'BAD_REQUEST']);
      }
    });

    it('takes the secret key only', async () => {
      expect((await get('/activity', given.project.publicKey)).status).toBe(401);
      expect((await given.client.get('/analytics/top-events')).status).toBe(401);
    });
  });

  describe('GET /activity/stats, /recent-count, /types', () => {
    it('counts the milestones of the emails created in the window, and the received mail', async () => {
      const now = new Date();
      await seed.email({ sent_at: now, delivered_at: now, opened_at: now, clicked_at: now });
      await seed.email({ sent_at: now, delivered_at: now, opened_at: now });
      await seed.email({ sent_at: now, bounced_at: now, status: 'BOUNCED' });
      await seed.email({ sent_at: now, delivered_at: now, complained_at: now, status: 'COMPLAINED' });
      await seed.email({ status: 'QUEUED' });
      await seed.email({ created_at: ago(10 * DAY), sent_at: ago(10 * DAY), delivered_at: ago(10 * DAY) });
      await seed.event('email.received', {});
      await seed.event('email.received', { at: ago(10 * DAY) });

      expect((await get('/activity/stats')).body).toEqual({ sent: 5, delivered: 4, opened: 2, clicked: 1, bounced: 1, complained: 1, received: 2 });
      expect((await get('/activity/stats?days=7')).body).toEqual({ sent: 4, delivered: 3, opened: 2, clicked: 1, bounced: 1, complained: 1, received: 1 });
      expect((await get('/activity/stats?days=0')).body.sent).toBe(4);
      expect((await get('/activity/stats?days=soon')).status).toBe(400);
    });

    it('counts the activity of the last 24 hours', async () => {
      await seed.event('email.sent', { at: ago(HOUR) });
      await seed.event('email.delivered', { at: ago(23 * HOUR) });
      await seed.event('email.opened', { at: ago(25 * HOUR) });
      await seed.event('signed_up', {});
      expect((await get('/activity/recent-count')).body).toEqual({ count: 2 });
    });

    it('lists the activity types the project has, in their fixed order', async () => {
      expect((await get('/activity/types')).body).toEqual({ types: [] });
      await seed.event('email.received', {});
      await seed.event('email.opened', {});
      await seed.event('email.sent', {});
      await seed.event('email.sent', {});
      await seed.event('signed_up', {});
      expect((await get('/activity/types')).body).toEqual({ types: ['email.sent', 'email.opened', 'email.received'] });
    });
  });

  describe('GET /activity/upcoming', () => {
    it('lists the scheduled campaigns soonest first and no executions yet', async () => {
      const later = await seed.campaign({ name: 'Later', status: 'SCHEDULED', scheduled_for: dayStart(3) });
      const sooner = await seed.campaign({ name: 'Sooner', status: 'SCHEDULED', scheduled_for: dayStart(1) });
      await seed.campaign({ name: 'Draft', status: 'DRAFT' });
      await seed.campaign({ name: 'Sent', status: 'SENT' });
      expect((await get('/activity/upcoming')).body).toEqual({
        campaigns: [
          { id: sooner, name: 'Sooner', status: 'SCHEDULED', scheduledFor: dayStart(1).toISOString() },
          { id: later, name: 'Later', status: 'SCHEDULED', scheduledFor: dayStart(3).toISOString() },
        ],
        executions: [],
      });
    });
  });

  describe('GET /analytics/timeseries', () => {
    it('gives a point for every day, zeros included, counting each milestone in the day it happened', async () => {
      const yesterday = new Date(dayStart(-1).getTime() + 12 * HOUR);
      const lateYesterday = new Date(dayStart(-1).getTime() + 23 * HOUR);
      await seed.email({ created_at: yesterday, sent_at: yesterday, delivered_at: yesterday, opened_at: lateYesterday, clicked_at: lateYesterday });
      await seed.email({ created_at: yesterday, sent_at: yesterday, bounced_at: yesterday });
      await seed.email({ created_at: dayStart(-10), sent_at: dayStart(-10) });

      const answer = await get('/analytics/timeseries?days=3');
      expect(answer.status).toBe(200);
      const zero = { sent: 0, delivered: 0, opened: 0, clicked: 0, bounced: 0 };
      expect(answer.body).toEqual({
        data: [
          { date: dayStart(-2).toISOString(), ...zero },
          { date: dayStart(-1).toISOString(), sent: 2, delivered: 1, opened: 1, clicked: 1, bounced: 1 },
          { date: dayStart(0).toISOString(), ...zero },
        ],
      });
      expect((await get('/analytics/timeseries')).body.data).toHaveLength(30);
      expect((await get('/analytics/timeseries?days=1000')).body.data).toHaveLength(365);
    });

    it('gives hourly points over at most a week', async () => {
      const thisHour = new Date(Math.floor(Date.now() / HOUR) * HOUR);
      await seed.email({ created_at: thisHour, sent_at: thisHour });
      const day = await get('/analytics/timeseries?days=1&interval=hour');
      expect(day.body.data).toHaveLength(24);
      expect(day.body.data[0].date).toBe(new Date(thisHour.getTime() - 23 * HOUR).toISOString());
      expect(day.body.data[23]).toEqual({ date: thisHour.toISOString(), sent: 1, delivered: 0, opened: 0, clicked: 0, bounced: 0 });
      expect(day.body.data.slice(0, 23).every((point: { sent: number }) => point.sent === 0)).toBe(true);
      expect((await get('/analytics/timeseries?days=30&interval=hour')).body.data).toHaveLength(7 * 24);
    });

    it('answers 400 for an unknown interval or a days that is not an integer', async () => {
      expect((await get('/analytics/timeseries?interval=week')).status).toBe(400);
      expect((await get('/analytics/timeseries?days=1.5')).status).toBe(400);
    });
  });

  describe('campaign analytics', () => {
    it('ranks the campaigns that sent by the chosen counter, with rates over delivered', async () => {
      const big = await seed.campaign({ name: 'Big', sent_count: 100, delivered_count: 80, opened_count: 20, clicked_count: 2 });
      const engaging = await seed.campaign({ name: 'Engaging', sent_count: 10, delivered_count: 10, opened_count: 9, clicked_count: 5 });
      const undelivered = await seed.campaign({ name: 'Undelivered', sent_count: 5 });
      await seed.campaign({ name: 'Draft', status: 'DRAFT' });

      const bySent = await get('/analytics/top-campaigns');
      expect(bySent.status).toBe(200);
      expect(bySent.body.data).toEqual([
        { id: big, name: 'Big', sent: 100, delivered: 80, opened: 20, clicked: 2, openRate: 0.25, clickRate: 0.025 },
        { id: engaging, name: 'Engaging', sent: 10, delivered: 10, opened: 9, clicked: 5, openRate: 0.9, clickRate: 0.5 },
        { id: undelivered, name: 'Undelivered', sent: 5, delivered: 0, opened: 0, clicked: 0, openRate: 0, clickRate: 0 },
      ]);
      const byClicks = await get('/analytics/top-campaigns?metric=clicked&limit=1');
      expect(byClicks.body.data.map((campaign: { id: string }) => campaign.id)).toEqual([engaging]);
      expect((await get('/analytics/top-campaigns?metric=opened')).body.data[0].id).toBe(big);
      expect((await get('/analytics/top-campaigns?metric=bounced')).status).toBe(400);
    });

    it('breaks down every campaign, newest first', async () => {
      const sentAt = dayStart(-2);
      const older = await seed.campaign({
        name: 'Older',
        created_at: dayStart(-5),
        sent_at: sentAt,
        total_recipients: 50,
        sent_count: 40,
        delivered_count: 32,
        opened_count: 8,
        clicked_count: 4,
        bounced_count: 4,
        complained_count: 1,
      });
      const draft = await seed.campaign({ name: 'Newer', status: 'DRAFT' });
      const answer = await get('/analytics/campaign-stats');
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([
        expect.objectContaining({ id: draft, name: 'Newer', status: 'DRAFT', sent: 0, openRate: 0, clickRate: 0, bounceRate: 0, sentAt: null }),
        {
          id: older,
          name: 'Older',
          status: 'SENT',
          totalRecipients: 50,
          sent: 40,
          delivered: 32,
          opened: 8,
          clicked: 4,
          bounced: 4,
          complained: 1,
          openRate: 0.25,
          clickRate: 0.125,
          bounceRate: 0.1,
          sentAt: sentAt.toISOString(),
        },
      ]);
      expect((await get('/analytics/campaign-stats?limit=1')).body.data).toHaveLength(1);
    });
  });

  describe('GET /analytics/top-events', () => {
    it('ranks the tracked event names, leaving out the ones Herald records', async () => {
      for (const name of ['signed_up', 'signed_up', 'signed_up', 'paid', 'paid', 'viewed']) await seed.event(name, {});
      for (let i = 0; i < 5; i += 1) await seed.event('email.sent', {});
      expect((await get('/analytics/top-events')).body).toEqual({
        data: [
          { name: 'signed_up', count: 3 },
          { name: 'paid', count: 2 },
          { name: 'viewed', count: 1 },
        ],
      });
      expect((await get('/analytics/top-events?limit=1')).body.data).toEqual([{ name: 'signed_up', count: 3 }]);
    });
  });

  it("shows nothing of another project's emails, events or campaigns", async () => {
    const other = (await signupWithProject(given.api)).project;
    const contactId = await seed.contact('other@example.com', other.id);
    const campaignId = await seed.campaign({ status: 'SCHEDULED', scheduled_for: dayStart(1), sent_count: 3 }, other.id);
    const emailId = await seed.email({ contact_id: contactId, campaign_id: campaignId, sent_at: new Date() }, other.id);
    await seed.event('email.sent', { contactId, emailId }, other.id);
    await seed.event('signed_up', { contactId }, other.id);
    await seed.event('email.opened', { emailId });

    const feed = await get('/activity');
    expect(feed.body.data).toEqual([expect.objectContaining({ type: 'email.opened', emailId, campaignId: null, subject: 'From the event' })]);
    expect((await get(`/activity?contactId=${contactId}`)).body.data).toEqual([]);
    expect((await get('/activity/stats')).body.sent).toBe(0);
    expect((await get('/activity/recent-count')).body.count).toBe(1);
    expect((await get('/activity/types')).body.types).toEqual(['email.opened']);
    expect((await get('/activity/upcoming')).body.campaigns).toEqual([]);
    expect((await get('/analytics/timeseries?days=1')).body.data[0].sent).toBe(0);
    expect((await get('/analytics/top-campaigns')).body.data).toEqual([]);
    expect((await get('/analytics/campaign-stats')).body.data).toEqual([]);
    expect((await get('/analytics/top-events')).body.data).toEqual([]);
  });
});
