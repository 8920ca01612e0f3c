import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { loadConfig, type Config } from '../../src/config';
import { ContactsService } from '../../src/contacts/contacts-service';
import { openDatabase } from '../../src/db/data-source';
import { EventDispatcher } from '../../src/events/dispatcher';
import { logger } from '../../src/logger';
import { MailEventsService, type MailEventResult } from '../../src/mail-events/mail-events-service';
import { parseSnsMessage } from '../../src/mail-events/sns-message';
import { Delivery } from '../../src/sending/delivery';
import { AcceptingMailer, snsNotification } from './mail-events';

/** A QUEUED email of a new project to a new subscribed contact, in its own campaign when asked. */
export interface QueuedEmail {
  projectId: string;
  emailId: string;
  contactId: string;
  address: string;
  campaignId: string | null;
}

/**
 * Herald's mail event webhook service and its Delivery over the test database, sending through
 * an AcceptingMailer: mail events can be received at any moment of a send.
 */
export class MailEventFixture {
  readonly mailer = new AcceptingMailer();
  readonly delivery: Delivery;
  readonly mailEvents: MailEventsService;

  private constructor(
    readonly dataSource: DataSource,
    config: Config,
  ) {
    const contacts = new ContactsService(dataSource, new EventDispatcher());
    this.delivery = new Delivery(dataSource, this.mailer, config, contacts);
    this.mailEvents = new MailEventsService(contacts, undefined, async () => {});
  }

  /** Opens the test database. */
  static async start(): Promise<MailEventFixture> {
    const config = loadConfig();
    logger.level = config.logLevel;
    return new MailEventFixture(await openDatabase(config.databaseUrl!, 4), config);
  }

  close = () => this.dataSource.destroy();

  query = (sql: string, params: unknown[] = []) => this.dataSource.query(sql, params);

  /** Receives one SES record as an SNS notification, as `POST /webhooks/mail-events` does. */
  receive(record: unknown, notificationId: string = randomUUID()): Promise<MailEventResult> {
    return this.mailEvents.receive(parseSnsMessage(snsNotification(record, notificationId)));
  }

  /** A QUEUED MARKETING email to a new subscribed contact; with `campaign`, the only email of a new SENDING campaign. */
  async queuedEmail(options: { campaign?: boolean } = {}): Promise<QueuedEmail> {
    const address = `r-${randomUUID()}@example.com`;
    const [{ id: projectId }] = await this.query(`INSERT INTO projects (name) VALUES ('Mail event fixture') RETURNING id`);
    const [{ id: contactId }] = await this.query('INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, true) RETURNING id', [projectId, address]);
    const [campaign] = options.campaign
      ? await this.query(
          `INSERT INTO campaigns (project_id, name, subject, body, "from", type, status, audience_type)
           VALUES ($1, 'News', 'News', '<p>News</p>', 'news@example.com', 'MARKETING', 'SENDING', 'ALL') RETURNING id`,
          [projectId],
        )
      : [{ id: null }];
    const [{ id: emailId }] = await this.query(
      `INSERT INTO emails (project_id, contact_id, campaign_id, source, type, to_email, "from", subject, body, status)
       VALUES ($1, $2, $3, $4, 'MARKETING', $5, 'news@example.com', 'News', '<p>News</p>', 'QUEUED') RETURNING id`,
      [projectId, contactId, campaign.id, campaign.id ? 'CAMPAIGN' : 'SEND', address],
    );
    return { projectId, emailId, contactId, address, campaignId: campaign.id };
  }

  /** Everything a mail event can change about a queued email: its row, campaign counters, suppression, contact and events. */
  async outcome(email: QueuedEmail) {
    const [row] = await this.query(
      `SELECT status, message_id IS NOT NULL AS "hasMessageId", sent_at IS NOT NULL AS "hasSentAt", error,
              delivered_at AS "deliveredAt", opened_at AS "openedAt", clicked_at AS "clickedAt",
              bounced_at AS "bouncedAt", complained_at AS "complainedAt"
         FROM emails WHERE id = $1`,
      [email.emailId],
    );
    const [counters] = email.campaignId
      ? await this.query(
          `SELECT sent_count, delivered_count, opened_count, clicked_count, bounced_count, complained_count FROM campaigns WHERE id = $1`,
          [email.campaignId],
        )
      : [null];
    const [suppression] = await this.query('SELECT reason FROM suppressions WHERE project_id = $1 AND value = $2', [email.projectId, email.address]);
    const [{ subscribed }] = await this.query('SELECT subscribed FROM contacts WHERE id = $1', [email.contactId]);
    const events: { name: string }[] = await this.query('SELECT name FROM events WHERE contact_id = $1', [email.contactId]);
    const backlog = await this.query('SELECT notification_id FROM mail_event_backlog WHERE email_id = $1', [email.emailId]);
    return {
      row,
      counters,
      suppression: suppression?.reason ?? null,
      subscribed,
      events: events.map((event) => event.name).sort(),
      waitingInBacklog: backlog.length,
    };
  }
}
