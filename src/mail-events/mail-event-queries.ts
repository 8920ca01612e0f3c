import type { EntityManager } from 'typeorm';
import { Email } from '../entities/email';
import type { EmailMilestone, MailEvent } from './ses-event';

/** How long a mail event waits in the backlog for its email's send to be recorded before housekeeping drops it. */
export const MAIL_EVENT_BACKLOG_HOURS = 24;

/**
 * The advisory lock between a mail event with no `emailId` tag that matched no message id
 * (taken alone, while it is kept in the backlog) and the transactions that record sends
 * (shared, before they take their emails' events from the backlog): one of the two always
 * sees what the other wrote.
 */
const RECORDING_LOCK = `hashtextextended('herald.mail-event-backlog', 0)`;

/** A mail event that waited in the backlog, as received. */
export interface BacklogEntry {
  notificationId: string;
  /** The SES record: the SNS notification's `Message`. */
  record: string;
  receivedAt: Date;
}

/** A backlog entry housekeeping dropped: what its log line names. */
export interface DroppedMailEvent {
  notificationId: string;
  messageId: string;
  emailId: string | null;
  eventType: string;
  receivedAt: Date;
}

/** An email whose send was just recorded (SENT with its message id, or FAILED without one). */
export interface RecordedEmail {
  emailId: string;
  messageId: string | null;
}

/** Stores the receipt of an SNS notification; false when it was received before. */
export async function recordReceipt(manager: EntityManager, notificationId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    'INSERT INTO mail_event_receipts (notification_id) VALUES ($1) ON CONFLICT DO NOTHING RETURNING notification_id',
    [notificationId],
  );
  return rows.length > 0;
}

/** The email a mail event is about, locked: the one its `emailId` tag names, else the one with its SES message id. */
export async function lockEmailOf(manager: EntityManager, event: MailEvent): Promise<Email | null> {
  const lock = { mode: 'pessimistic_write' } as const;
  const tagged = event.emailId ? await manager.findOne(Email, { where: { id: event.emailId }, lock }) : null;
  return tagged ?? manager.findOne(Email, { where: { messageId: event.messageId }, lock });
}

/** Waits until no transaction recording sends is running, and keeps new ones from taking backlog entries until this one ends. */
export async function holdRecordingLock(manager: EntityManager): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(${RECORDING_LOCK})`);
}

/** Keeps a mail event in the backlog until its email's send is recorded; `receivedAt` of an entry kept again stays. */
export async function keepInBacklog(manager: EntityManager, notificationId: string, event: MailEvent, record: string, receivedAt?: Date): Promise<void> {
  await manager.query(
    `INSERT INTO mail_event_backlog (notification_id, email_id, message_id, event_type, record, received_at)
     VALUES ($1, $2, $3, $4, $5, coalesce($6, now()))`,
    [notificationId, event.emailId ?? null, event.messageId, event.eventType, record, receivedAt ?? null],
  );
}

/**
 * Removes and answers the backlog entries of emails whose send was just recorded, by email id
 * or message id, oldest first: one indexed statement for a whole group of sends, after the
 * shared recording lock.
 */
export async function takeFromBacklog(manager: EntityManager, emails: RecordedEmail[]): Promise<BacklogEntry[]> {
  if (emails.length === 0) return [];
  await manager.query(`SELECT pg_advisory_xact_lock_shared(${RECORDING_LOCK})`);
  const [rows]: [BacklogEntry[], number] = await manager.query(
    `DELETE FROM mail_event_backlog WHERE email_id = ANY($1::uuid[]) OR message_id = ANY($2::text[])
     RETURNING notification_id AS "notificationId", record, received_at AS "receivedAt"`,
    [emails.map((email) => email.emailId), emails.flatMap((email) => (email.messageId ? [email.messageId] : []))],
  );
  return rows.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.notificationId.localeCompare(b.notificationId));
}

/** Removes and answers the backlog entries that waited longer than MAIL_EVENT_BACKLOG_HOURS. */
export async function dropExpiredBacklog(manager: EntityManager): Promise<DroppedMailEvent[]> {
  const [rows]: [DroppedMailEvent[], number] = await manager.query(
    `DELETE FROM mail_event_backlog WHERE received_at < now() - make_interval(hours => $1)
     RETURNING notification_id AS "notificationId", message_id AS "messageId", email_id AS "emailId",
               event_type AS "eventType", received_at AS "receivedAt"`,
    [MAIL_EVENT_BACKLOG_HOURS],
  );
  return rows;
}

/** Writes what a mail event changed on its email (status, error, milestone times). */
export async function updateEmail(manager: EntityManager, id: string, patch: Partial<Pick<Email, 'status' | 'error' | EmailMilestone>>): Promise<void> {
  await manager.update(Email, { id }, patch);
}
