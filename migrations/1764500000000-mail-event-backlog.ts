import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Mail events that arrive before their email's send is recorded (SNS can deliver them the
 * instant SES accepts the message, before Herald stores its MessageId): kept with the SES
 * record as received, looked up by the email's id (the `emailId` tag) or its SES message id
 * when the send is recorded, and dropped by housekeeping when still there after 24 hours.
 */
export class MailEventBacklog1764500000000 implements MigrationInterface {
  name = 'MailEventBacklog1764500000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE mail_event_backlog (
        notification_id text PRIMARY KEY,
        email_id uuid,
        message_id text NOT NULL,
        event_type text NOT NULL,
        record text NOT NULL,
        received_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX mail_event_backlog_email_idx ON mail_event_backlog (email_id);
      CREATE INDEX mail_event_backlog_message_idx ON mail_event_backlog (message_id);
      CREATE INDEX mail_event_backlog_received_idx ON mail_event_backlog (received_at);
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE mail_event_backlog');
  }
}
