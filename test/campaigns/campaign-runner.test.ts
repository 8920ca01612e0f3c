import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { stopCampaign } from '../../src/campaigns/campaigns-queries';
import { CampaignRunner, DELIVERY_CONCURRENCY, PAGES_PER_BATCH, type BatchRequest } from '../../src/campaigns/campaign-runner';
import { loadConfig } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TransientMailError, type Mailer, type OutgoingMessage, type SentMessage } from '../../src/mailer/types';
import { Delivery } from '../../src/sending/delivery';

/** A transport that takes each message after a few milliseconds, keeping the email ids and subjects it took. */
class FakeMailer implements Mailer {
  readonly transport = 'ses' as const;
  readonly emailIds: string[] = [];
  readonly subjects = new Set<string>();
  /** The HTML of each message taken, by email id. */
  readonly htmls = new Map<string, string>();
  /** Runs once the message with this number (from 1) is taken. */
  onSent?: (count: number) => Promise<void>;
  failing = false;

  async send(message: OutgoingMessage): Promise<SentMessage> {
    await new Promise((resolve) => setTimeout(resolve, 2));
    if (this.failing) throw new TransientMailError('SES is throttling');
    this.emailIds.push(message.tags!.emailId);
    this.subjects.add(message.subject);
    this.htmls.set(message.tags!.emailId, message.html);
    await this.onSent?.(this.emailIds.length);
    return { messageId: randomUUID() };
  }
}

describe('CampaignRunner batches', () => {
  let dataSource: DataSource;
  let mailer: FakeMailer;
  let runner: CampaignRunner;
  let projectId: string;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
  });
  afterAll(() => dataSource?.destroy());
  beforeEach(() => {
    mailer = new FakeMailer();
    const config = loadConfig();
    runner = new CampaignRunner(dataSource, new Delivery(dataSource, mailer, config, new ContactsService(dataSource, new EventDispatcher())), config);
  });

  /** A SENDING MARKETING campaign of a new project to its `count` subscribed contacts: the request of its first batch. */
  async function sendingCampaign(count: number): Promise<BatchRequest> {
    [{ id: projectId }] = await dataSource.query(`INSERT INTO projects (name) VALUES ('Campaign runner test') RETURNING id`);
    await dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed, data) SELECT $1, 'c' || i || '@example.com', true, '{"first":"Ada"}' FROM generate_series(1, $2) AS i`,
      [projectId, count],
    );
    const [{ id }] = await dataSource.query(
      `INSERT INTO campaigns (project_id, name, subject, body, "from", type, status, audience_type)
       VALUES ($1, 'News', 'News for {{ first }}', '<p>Hello {{ first }}</p>', 'news@example.com', 'MARKETING', 'SCHEDULED', 'ALL') RETURNING id`,
      [projectId],
    );
    const plan = (await runner.begin(id))!;
    expect(plan.batchSize).toBeGreaterThanOrEqual(count);
    return { campaignId: id, ...plan, afterContactId: null };
  }

  async function outcome(campaignId: string) {
    const statuses: { status: string; n: number }[] = await dataSource.query(
      'SELECT status, count(*)::int AS n FROM emails WHERE campaign_id = $1 GROUP BY status ORDER BY status',
      [campaignId],
    );
    const [{ sent_count: sentCount }] = await dataSource.query('SELECT sent_count FROM campaigns WHERE id = $1', [campaignId]);
    const [{ n: sentEvents }] = await dataSource.query(
      `SELECT count(*)::int AS n FROM events WHERE name = 'email.sent' AND (data->>'emailId')::uuid IN (SELECT id FROM emails WHERE campaign_id = $1)`,
      [campaignId],
    );
    return { statuses: Object.fromEntries(statuses.map((row) => [row.status, row.n])), sentCount, sentEvents };
  }

  it('sends each email once, rendered for its contact, and counts it once when the batch is run again', async () => {
    const request = await sendingCampaign(120);
    await runner.sendBatch(request, () => undefined);
    await runner.sendBatch(request, () => undefined);
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: 120 }, sentCount: 120, sentEvents: 120 });
    expect(new Set(mailer.emailIds).size).toBe(120);
    expect(mailer.emailIds).toHaveLength(120);
    expect([...mailer.subjects]).toEqual(['News for Ada']);
  });

  it('keeps sentCount and the email.sent events exact when two attempts of one batch overlap', async () => {
    const request = await sendingCampaign(150);
    await Promise.all([runner.sendBatch(request, () => undefined), runner.sendBatch(request, () => undefined)]);
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: 150 }, sentCount: 150, sentEvents: 150 });
    expect(new Set(mailer.emailIds).size).toBe(150);
  });

  it('retries a batch that failed transiently with the emails still QUEUED, skipping an address suppressed meanwhile', async () => {
    const request = await sendingCampaign(30);
    mailer.failing = true;
    await expect(runner.sendBatch(request, () => undefined)).rejects.toThrow('SES is throttling');
    const [{ id, to_email: address }] = await dataSource.query('SELECT id, to_email FROM emails WHERE campaign_id = $1 ORDER BY contact_id LIMIT 1', [
      request.campaignId,
    ]);
    await dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, $2, 'MANUAL')`, [projectId, address]);
    mailer.failing = false;
    const result = await runner.sendBatch(request, () => undefined);
    expect(result).toMatchObject({ stopped: false, contacts: 29, attempted: 29 });
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: 29, SUPPRESSED: 1 }, sentCount: 29, sentEvents: 29 });
    expect(mailer.emailIds).not.toContain(id);
  });

  it('starts no send once its attempt is given up, and a retry delivers the rest exactly once', async () => {
    const request = await sendingCampaign(500);
    const givenUp = new AbortController();
    mailer.onSent = async (count) => {
      if (count === 30) givenUp.abort(new Error('attempt timed out'));
    };
    await expect(runner.sendBatch(request, () => undefined, givenUp.signal)).rejects.toThrow('attempt timed out');
    // Only the sends in flight when it was given up (at most one per lane) went out after it.
    expect(mailer.emailIds.length).toBeLessThan(30 + DELIVERY_CONCURRENCY);
    const { statuses } = await outcome(request.campaignId);
    expect(statuses.QUEUED).toBeGreaterThan(0);
    mailer.onSent = undefined;
    await runner.sendBatch(request, () => undefined);
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: 500 }, sentCount: 500, sentEvents: 500 });
    expect(mailer.emailIds).toHaveLength(500);
  });

  it('sends none of the rest once the campaign is cancelled mid-batch, without waiting on its sends', async () => {
    const request = await sendingCampaign(500);
    let cancelMs = 0;
    /** Messages the transport had taken when the cancel committed (the other lanes go on sending while it runs). */
    let takenAtCancel = 0;
    mailer.onSent = async (count) => {
      if (count !== 20) return;
      const started = Date.now();
      // As POST /campaigns/{id}/cancel does: the campaign locked, then stopped with its queued emails.
      await dataSource.transaction(async (manager) => {
        await manager.query('SELECT 1 FROM campaigns WHERE id = $1 FOR UPDATE', [request.campaignId]);
        await stopCampaign(manager, request.campaignId, 'Cancelled through the API');
      });
      takenAtCancel = mailer.emailIds.length;
      cancelMs = Date.now() - started;
    };
    await runner.sendBatch(request, () => undefined);
    const { statuses, sentCount, sentEvents } = await outcome(request.campaignId);
    expect(Object.keys(statuses).sort()).toEqual(['SENT', 'SKIPPED']);
    expect(sentCount).toBe(statuses.SENT);
    expect(sentEvents).toBe(statuses.SENT);
    // Every email the transport took is recorded SENT, also one whose send was in flight at the cancel.
    expect(statuses.SENT).toBe(new Set(mailer.emailIds).size);
    // Only the sends in flight at the cancel's commit (at most one per lane) went out after it.
    expect(takenAtCancel).toBeGreaterThanOrEqual(20);
    expect(mailer.emailIds.length).toBeLessThanOrEqual(takenAtCancel + DELIVERY_CONCURRENCY);
    expect(statuses.SKIPPED).toBeGreaterThanOrEqual(500 - takenAtCancel - DELIVERY_CONCURRENCY);
    expect(cancelMs).toBeLessThan(1000);
  });

  it('delivers the pages after the first in the same attempt, up to PAGES_PER_BATCH, and answers the last page as the cursor', async () => {
    const pageSize = 10;
    const contacts = pageSize * PAGES_PER_BATCH + 35;
    const request = { ...(await sendingCampaign(contacts)), batchSize: pageSize };
    const ids: string[] = (await dataSource.query('SELECT id FROM contacts WHERE project_id = $1 ORDER BY id', [projectId])).map((row: { id: string }) => row.id);
    const first = await runner.sendBatch(request, () => undefined);
    expect(first).toEqual({ stopped: false, contacts: pageSize, lastContactId: ids[pageSize * PAGES_PER_BATCH - 1], attempted: pageSize * PAGES_PER_BATCH, minDurationMs: 0 });
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: pageSize * PAGES_PER_BATCH }, sentCount: pageSize * PAGES_PER_BATCH, sentEvents: pageSize * PAGES_PER_BATCH });
    const second = await runner.sendBatch({ ...request, afterContactId: first.lastContactId }, () => undefined);
    expect(second).toEqual({ stopped: false, contacts: 5, lastContactId: ids[contacts - 1], attempted: 35, minDurationMs: 0 });
    expect(await outcome(request.campaignId)).toEqual({ statuses: { SENT: contacts }, sentCount: contacts, sentEvents: contacts });
    expect(mailer.emailIds).toHaveLength(contacts);
    expect(new Set(mailer.emailIds).size).toBe(contacts);
  });

  it('queues no page after a cancel between pages, and sends none of the pages queued before it that were not yet sent', async () => {
    const request = { ...(await sendingCampaign(200)), batchSize: 10 };
    mailer.onSent = async (count) => {
      if (count !== 15) return;
      await dataSource.transaction(async (manager) => {
        await manager.query('SELECT 1 FROM campaigns WHERE id = $1 FOR UPDATE', [request.campaignId]);
        await stopCampaign(manager, request.campaignId, 'Cancelled through the API');
      });
    };
    const result = await runner.sendBatch(request, () => undefined);
    expect(result.stopped).toBe(true);
    const { statuses, sentCount } = await outcome(request.campaignId);
    // Emails of pages queued before the cancel were sent (those in flight) or skipped, none left QUEUED.
    expect(Object.keys(statuses).filter((status) => status !== 'SENT' && status !== 'SKIPPED')).toEqual([]);
    expect(sentCount).toBe(statuses.SENT);
    expect(statuses.SENT).toBe(new Set(mailer.emailIds).size);
    // Pages after the cancel were never queued.
    expect(statuses.SENT + (statuses.SKIPPED ?? 0)).toBeLessThan(200);
  });

  it("sends each email with its own row's body, the campaign's for those that hold it", async () => {
    const request = await sendingCampaign(3);
    mailer.failing = true;
    await expect(runner.sendBatch(request, () => undefined)).rejects.toThrow('SES is throttling');
    const [{ id: own }] = await dataSource.query(
      `UPDATE emails SET body = '<p>Own {{ first }}</p>' WHERE id = (SELECT id FROM emails WHERE campaign_id = $1 ORDER BY contact_id LIMIT 1) RETURNING id`,
      [request.campaignId],
    ).then(([rows]: [{ id: string }[]]) => rows);
    mailer.failing = false;
    await runner.sendBatch(request, () => undefined);
    expect(mailer.htmls.size).toBe(3);
    for (const [emailId, html] of mailer.htmls) expect(html).toContain(emailId === own ? 'Own Ada' : 'Hello Ada');
  });
});
