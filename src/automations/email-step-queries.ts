import type { EntityManager } from 'typeorm';
import type { RunQuery } from '../db/pipelined-transaction';
import { prepared, runPrepared } from '../db/prepared';
import { verifiedDomainSql } from '../domains/domains-queries';
import type { EmailType } from '../entities/template';
import { suppressedSql } from '../sending/send-queries';

/** The SQL of a SEND_EMAIL step: what it checks before it queues its email, and the email record it writes. */

/** What a SEND_EMAIL step checks before it writes its email record, read together. */
export interface StepEmailChecks {
  /** The step's email record exists: an earlier attempt wrote it, so the step only delivers it. */
  written: boolean;
  /** The contact, unless it was deleted (or is not the project's). */
  contact: { id: string; email: string; subscribed: boolean } | null;
  /** One of the sender's domains is a VERIFIED domain of the project. */
  verifiedSender: boolean;
  /** The contact's address, or its domain, is on the project's suppression list. */
  suppressed: boolean;
  /** The project's emails cap (null: none), which a written record is counted against. */
  emailsCap: number | null;
}

/**
 * Reads a SEND_EMAIL step's checks (StepEmailChecks) in one statement: whether its email record
 * `emailId` exists, the project's contact, whether one of `senderDomains` (the sender's domain
 * and its parents) is verified, whether the contact is suppressed, and the project's emails cap.
 */
export async function stepEmailChecks(
  manager: EntityManager,
  input: { projectId: string; contactId: string; emailId: string; senderDomains: string[] },
): Promise<StepEmailChecks> {
  const [row] = (await runPrepared(manager, STEP_EMAIL_CHECKS, [input.projectId, input.contactId, input.emailId, input.senderDomains])) as StepEmailChecks[];
  return row;
}

const STEP_EMAIL_CHECKS = prepared(
  `SELECT EXISTS (SELECT 1 FROM emails WHERE id = $3) AS written,
          CASE WHEN c.id IS NULL THEN NULL ELSE jsonb_build_object('id', c.id, 'email', c.email, 'subscribed', c.subscribed) END AS contact,
          ${verifiedDomainSql('$1::uuid', '$4::text[]')} AS "verifiedSender",
          ${suppressedSql('$1::uuid', 'c.email')} AS suppressed,
          (SELECT emails FROM billing_limits WHERE project_id = $1) AS "emailsCap"
     FROM (SELECT 1) AS one LEFT JOIN contacts c ON c.project_id = $1 AND c.id = $2`,
);

/** The message of a SEND_EMAIL step's email record. */
export interface StepEmailValues {
  id: string;
  projectId: string;
  contactId: string;
  templateId: string | null;
  type: EmailType;
  toEmail: string;
  from: string;
  fromName: string | null;
  replyTo: string | null;
  subject: string;
  body: string;
  variables: Record<string, unknown>;
}

/**
 * Inserts a SEND_EMAIL step's QUEUED email record (source WORKFLOW) through `query` (a statement
 * of the caller's transaction, or its last, sent with its COMMIT); false when a record with its id exists already.
 */
export async function insertStepEmail(query: RunQuery, email: StepEmailValues): Promise<boolean> {
  const inserted = await query(
    `INSERT INTO emails (id, project_id, contact_id, template_id, source, type, to_email, "from", from_name, reply_to, subject, body, variables, status)
     VALUES ($1, $2, $3, $4, 'WORKFLOW', $5, $6, $7, $8, $9, $10, $11, $12, 'QUEUED')
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      email.id, email.projectId, email.contactId, email.templateId, email.type, email.toEmail, email.from, email.fromName,
      email.replyTo, email.subject, email.body, JSON.stringify(email.variables),
    ],
  );
  return inserted.length > 0;
}
