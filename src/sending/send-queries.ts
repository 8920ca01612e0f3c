import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { prepared, runPrepared } from '../db/prepared';
import { Email } from '../entities/email';
import { disabledReasonSql } from '../reputation/reputation-queries';
import { hasEndpointSql } from '../webhooks/sources-queries';
import type { SuppressionReason } from '../entities/suppression';
import { Template } from '../entities/template';

/** A template of the project by id; null when there is none. */
export function findProjectTemplate(manager: EntityManager, projectId: string, id: string): Promise<Template | null> {
  return manager.getRepository(Template).findOneBy({ projectId, id });
}

/** Stores one email record in the caller's transaction; answers it with its id. */
export function insertEmail(manager: EntityManager, values: Partial<Email>): Promise<Email> {
  return manager.save(manager.create(Email, values));
}

/** A `/v1/send` email record to store (insertEmails). */
export type NewEmail = Pick<
  Email,
  | 'projectId' | 'contactId' | 'templateId' | 'source' | 'type' | 'toEmail' | 'toName' | 'from' | 'fromName' | 'replyTo' | 'subject' | 'body'
  | 'contentId' | 'headers' | 'variables' | 'status' | 'attempts' | 'scheduledAt' | 'dueAt' | 'sendQueue'
>;

/** A stored email record, with its id (a `/v1/send` email belongs to no campaign). */
export type StoredEmail = NewEmail & { id: string; campaignId: null };

/**
 * Stores email records in the caller's transaction in one statement, their ids made here; answers
 * them with their ids, in order. A due time is never later than the database's clock, so that a
 * process whose clock runs ahead does not hold its emails back.
 */
export async function insertEmails(manager: EntityManager, values: NewEmail[]): Promise<StoredEmail[]> {
  const emails = values.map((value) => ({ id: randomUUID(), campaignId: null, ...value }));
  await manager.query(
    `INSERT INTO emails (id, project_id, contact_id, template_id, source, type, to_email, to_name, "from", from_name, reply_to, subject, body,
                         content_id, headers, variables, status, attempts, scheduled_at, due_at, send_queue)
     SELECT id, project_id, contact_id, template_id, source, type, to_email, to_name, "from", from_name, reply_to, subject, body,
            content_id, headers, variables, status, attempts, scheduled_at, CASE WHEN due_at IS NOT NULL THEN least(due_at, now()) END, send_queue
       FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, project_id uuid, contact_id uuid, template_id uuid, source text, type text, to_email text,
            to_name text, "from" text, from_name text, reply_to text, subject text, body text, content_id uuid, headers jsonb, variables jsonb,
            status text, attempts int, scheduled_at timestamptz, due_at timestamptz, send_queue text)`,
    [
      JSON.stringify(
        emails.map((email) => ({
          id: email.id,
          project_id: email.projectId,
          contact_id: email.contactId,
          template_id: email.templateId,
          source: email.source,
          type: email.type,
          to_email: email.toEmail,
          to_name: email.toName,
          from: email.from,
          from_name: email.fromName,
          reply_to: email.replyTo,
          subject: email.subject,
          body: email.body,
          content_id: email.contentId,
          headers: email.headers,
          variables: email.variables,
          status: email.status,
          attempts: email.attempts,
          scheduled_at: email.scheduledAt,
          due_at: email.dueAt,
          send_queue: email.sendQueue,
        })),
      ),
    ],
  );
  return emails;
}

/** An email record by id; null when there is none (yet). */
export function findEmail(manager: EntityManager, id: string): Promise<Email | null> {
  return manager.getRepository(Email).findOneBy({ id });
}

/**
 * A single email to deliver, with everything its delivery checks and renders besides its shared
 * content: the project's reason not to send (`disabledReason`, null while it may), whether its
 * address or domain is suppressed now, its contact (null when it has none or it was deleted), and
 * whether the project had an enabled webhook endpoint (`hooked`: its `email.*` events are emitted).
 */
export type DeliverableEmail = Pick<
  Email,
  | 'id' | 'projectId' | 'contactId' | 'campaignId' | 'templateId' | 'status' | 'type' | 'toEmail' | 'toName' | 'from' | 'fromName'
  | 'replyTo' | 'subject' | 'body' | 'contentId' | 'headers' | 'variables'
> & { disabledReason: string | null; suppressed: boolean; contact: { id: string; data: Record<string, unknown> } | null; hooked: boolean };

/** An email record by id with what delivering it checks (DeliverableEmail), in one statement; undefined when there is none (yet). */
export async function findDeliverableEmail(manager: EntityManager, id: string): Promise<DeliverableEmail | undefined> {
  const [row] = (await runPrepared(manager, DELIVERABLE_EMAIL, [id])) as DeliverableEmail[];
  return row;
}

/** Marks an email FAILED with the reason (at most 1,000 characters) if it is still QUEUED; answers whether it was. */
export async function failQueuedEmail(manager: EntityManager, id: string, reason: string): Promise<boolean> {
  const [, updated]: [unknown, number] = await manager.query(
    `UPDATE emails SET status = 'FAILED', error = $2, updated_at = now() WHERE id = $1 AND status = 'QUEUED'`,
    [id, reason.slice(0, 1000)],
  );
  return updated === 1;
}

/**
 * Counts an attempt of each email still QUEUED among `ids` (and, with `sendClaim`, still held by
 * the send lane's pass that claimed it under that token); answers the ids that were. Rows are
 * locked in id order, as every statement that writes many emails does, so that two of them never deadlock.
 */
export async function claimQueuedEmails(manager: EntityManager, ids: string[], sendClaim?: string): Promise<Set<string>> {
  const [rows]: [{ id: string }[], number] = await manager.query(
    `UPDATE emails SET attempts = attempts + 1
      WHERE id IN (SELECT id FROM emails WHERE id = ANY($1::uuid[]) AND status = 'QUEUED' AND ($2::uuid IS NULL OR send_claim = $2)
                    ORDER BY id FOR UPDATE)
      RETURNING id`,
    [ids, sendClaim ?? null],
  );
  return new Set(rows.map((row) => row.id));
}

/** The fields of a scheduled email that releasing it reads. */
export type ReleasedEmail = Pick<Email, 'id' | 'projectId' | 'contactId' | 'campaignId' | 'subject' | 'toEmail' | 'templateId' | 'from'>;

/**
 * Moves a SCHEDULED email to QUEUED (the one row update that decides between its send and a
 * cancel); answers it, or undefined when it was not SCHEDULED.
 */
export async function releaseScheduledEmail(manager: EntityManager, id: string): Promise<ReleasedEmail | undefined> {
  const [rows]: [ReleasedEmail[], number] = await manager.query(
    `UPDATE emails SET status = 'QUEUED', updated_at = now() WHERE id = $1 AND status = 'SCHEDULED'
      RETURNING id, project_id AS "projectId", contact_id AS "contactId", campaign_id AS "campaignId", subject,
                to_email AS "toEmail", template_id AS "templateId", "from"`,
    [id],
  );
  return rows[0];
}

/** Marks an email CANCELLED if it is still SCHEDULED (and of the project, when given); answers whether it was. */
export async function cancelScheduledEmail(manager: EntityManager, id: string, projectId?: string): Promise<boolean> {
  const [, updated]: [unknown, number] = await manager.query(
    `UPDATE emails SET status = 'CANCELLED', updated_at = now() WHERE id = $1 AND status = 'SCHEDULED' AND ($2::uuid IS NULL OR project_id = $2)`,
    [id, projectId ?? null],
  );
  return updated === 1;
}

/** Marks an email SUPPRESSED if it is still QUEUED; answers whether it was. */
export async function suppressQueuedEmail(manager: EntityManager, id: string): Promise<boolean> {
  const result = await manager.getRepository(Email).update({ id, status: 'QUEUED' }, { status: 'SUPPRESSED' });
  return result.affected === 1;
}

/**
 * SQL for the domain of the address in `column`: what follows its last `@` (a quoted local
 * part may hold one, as in `"a@b"@example.com`). The one definition of an address's domain
 * that every suppression check uses.
 */
const domainSql = (column: string) => `substring(${column} from '@([^@]*)$')`;

/**
 * SQL that is true when the address in `column` (lower-case) is suppressed in project
 * `projectColumn`: listed itself, or its domain listed. Two lookups by the whole primary key
 * `(project_id, value)`: with one lookup of both values, a plan that cannot tell how many
 * suppressions the project has (a prepared statement's generic plan, a project taken from a
 * joined row) may walk all of the project's suppressions by another index instead.
 */
export const suppressedSql = (projectColumn: string, column: string) =>
  `(EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${projectColumn} AND s.value = ${column})
    OR EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = ${projectColumn} AND s.value = ${domainSql(column)}))`;

/**
 * The columns of a DeliverableEmail, read from emails `e` left-joined to their contacts `c`
 * (after suppressedSql, which it uses): one definition for a single delivery and the send lanes' claims.
 */
export const DELIVERABLE_COLUMNS = `e.id, e.project_id AS "projectId", e.contact_id AS "contactId", e.campaign_id AS "campaignId", e.template_id AS "templateId",
          e.status, e.type, e.to_email AS "toEmail", e.to_name AS "toName", e."from", e.from_name AS "fromName", e.reply_to AS "replyTo",
          e.subject, e.body, e.content_id AS "contentId", e.headers, e.variables,
          ${disabledReasonSql('e.project_id')} AS "disabledReason",
          ${suppressedSql('e.project_id', 'lower(e.to_email)')} AS suppressed,
          CASE WHEN c.id IS NULL THEN NULL ELSE jsonb_build_object('id', c.id, 'data', c.data) END AS contact,
          ${hasEndpointSql('e.project_id')} AS hooked`;

/** findDeliverableEmail's statement. */
const DELIVERABLE_EMAIL = prepared(`SELECT ${DELIVERABLE_COLUMNS} FROM emails e LEFT JOIN contacts c ON c.id = e.contact_id WHERE e.id = $1`);

/** The addresses among `emails` (compared lower-case, answered as given) that the project never sends to; one statement. */
export async function suppressedAmong(manager: EntityManager, projectId: string, emails: string[]): Promise<Set<string>> {
  const rows: { email: string }[] = await manager.query(
    `SELECT a.email FROM unnest($2::text[]) AS a(email) WHERE ${suppressedSql('$1::uuid', 'lower(a.email)')}`,
    [projectId, emails],
  );
  return new Set(rows.map((row) => row.email));
}

/** Adds an address to the project's suppression list; the first reason recorded stays. */
export async function suppress(manager: EntityManager, projectId: string, email: string, reason: SuppressionReason): Promise<void> {
  await manager.query(
    `INSERT INTO suppressions (project_id, value, type, reason) VALUES ($1, $2, 'EMAIL', $3) ON CONFLICT (project_id, value) DO NOTHING`,
    [projectId, email.toLowerCase(), reason],
  );
}
