import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { CampaignRunner, type BatchRequest } from '../../src/campaigns/campaign-runner';
import { loadConfig } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { TransientMailError, type Mailer, type OutgoingMessage, type SentMessage } from '../../src/mailer/types';
import { Delivery } from '../../src/sending/delivery';
import { addEndpoint, recordedEvents } from './sources-support';

/** A transport that takes every message, except the first attempt to each address in `throttled`. */
class FlakyMailer implements Mailer {
  readonly transport = 'ses' as const;
  readonly throttled = new Set<string>();

  async send(message: OutgoingMessage): Promise<SentMessage> {
    const [to] = message.to;
    if (this.throttled.delete(to)) throw new TransientMailError('SES is throttling');
    return { messageId: randomUUID() };
  }
}

describe('email.* and campaign.sent webhook events from a campaign', () => {
  let dataSource: DataSource;
  let mailer: FlakyMailer;
  let runner: CampaignRunner;

  beforeAll(async () => {
    dataSource = await openDatabase(process.env.DATABASE_URL!, 4);
  });
  afterAll(() => dataSource?.destroy());
  beforeEach(() => {
    mailer = new FlakyMailer();
    const config = loadConfig();
    runner = new CampaignRunner(dataSource, new Delivery(dataSource, mailer, config, new ContactsService(dataSource, new EventDispatcher())), config);
  });

  /** A SCHEDULED MARKETING campaign of a new project to `count` subscribed contacts, begun: the request of its first batch. */
  async function begunCampaign(count: number, types?: string[]) {
    const [{ id: projectId }] = await dataSource.query(`INSERT INTO projects (name) VALUES ('Campaign hooks') RETURNING id`);
    if (types) await addEndpoint(dataSource, projectId, types);
    await dataSource.query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'c' || i || '@example.com', true FROM generate_series(1, $2) AS i`,
      [projectId, count],
    );
    // c3 comes last in contact id order, so a retried batch whose page leaves it out (suppressed meanwhile) ends before it.
    await dataSource.query(`UPDATE contacts SET id = ('ffffffff' || substr(gen_random_uuid()::text, 9))::uuid WHERE project_id = $1 AND email = 'c3@example.com'`, [projectId]);
    const [{ id }] = await dataSource.query(
      `INSERT INTO campaigns (project_id, name, subject, body, "from", type, status, audience_type)
       VALUES ($1, 'Launch', 'We launched', '<p>Hello</p>', 'news@example.com', 'MARKETING', 'SCHEDULED', 'ALL') RETURNING id`,
      [projectId],
    );
    const plan = (await runner.begin(id))!;
    const request: BatchRequest = { campaignId: id, ...plan, afterContactId: null };
    return { projectId, campaignId: id as string, request };
  }

  it('records email.sent per recipient and campaign.sent once, however often batches and the end run, and email.suppressed for an address suppressed before its retry', async () => {
    const { projectId, campaignId, request } = await begunCampaign(5, ['email.sent', 'email.suppressed', 'campaign.sent']);
    mailer.throttled.add('c3@example.com');
    await expect(runner.sendBatch(request, () => undefined)).rejects.toThrow('SES is throttling');
    await dataSource.query(`INSERT INTO suppressions (project_id, value, reason) VALUES ($1, 'c3@example.com', 'MANUAL')`, [projectId]);
    await runner.sendBatch(request, () => undefined);
    await runner.sendBatch(request, () => undefined);
    await runner.finish(campaignId);
    await runner.finish(campaignId);

    const events = await recordedEvents(dataSource, projectId);
    const sent = events.filter((event) => event.type === 'email.sent');
    expect(sent.map((event) => event.data.to).sort()).toEqual(['c1@example.com', 'c2@example.com', 'c4@example.com', 'c5@example.com']);
    expect(sent[0].data).toEqual({ emailId: expect.any(String), contactId: expect.any(String), to: expect.any(String), subject: 'We launched', campaignId, messageId: expect.any(String) });
    expect(events.filter((event) => event.type === 'email.suppressed').map((event) => event.data)).toEqual([
      { emailId: expect.any(String), contactId: expect.any(String), to: 'c3@example.com', subject: 'We launched', campaignId },
    ]);
    expect(events.filter((event) => event.type === 'campaign.sent')).toEqual([
      {
        type: 'campaign.sent',
        data: {
          campaignId,
          name: 'Launch',
          subject: 'We launched',
          sentAt: expect.any(String),
          totalRecipients: 5,
          sentCount: 4,
          deliveredCount: 0,
          openedCount: 0,
          clickedCount: 0,
          bouncedCount: 0,
          complainedCount: 0,
        },
        key: `campaign:${campaignId}:sent`,
      },
    ]);
  });

  it('records nothing for a campaign of a project without endpoints', async () => {
    const { projectId, campaignId, request } = await begunCampaign(3);
    await runner.sendBatch(request, () => undefined);
    await runner.finish(campaignId);
    expect((await dataSource.query(`SELECT count(*)::int AS n FROM emails WHERE campaign_id = $1 AND status = 'SENT'`, [campaignId]))[0].n).toBe(3);
    expect(await recordedEvents(dataSource, projectId)).toEqual([]);
  });
});
