import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Email, EmailStatus } from '../entities/email';
import { conflict, notFound } from '../http/errors';
import { logger } from '../logger';
import { cancelScheduledEmail } from '../sending/send-queries';
import { emailWorkflowId, scheduledEmailCancelled } from '../../workflows/shared';
import { findProjectEmail } from './emails-queries';

/** The statuses `GET /emails/{id}` answers. */
export const PUBLIC_EMAIL_STATUSES = ['SCHEDULED', 'QUEUED', 'SENT', 'DELIVERED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED', 'CANCELLED'] as const;

/** One of PUBLIC_EMAIL_STATUSES. */
export type PublicEmailStatus = (typeof PUBLIC_EMAIL_STATUSES)[number];

/**
 * An email's stored status as answered: an opened or clicked email was delivered (the open or
 * click is in the activity feed and the `openedAt`/`clickedAt` analytics), and a campaign email
 * SKIPPED because its campaign was cancelled is CANCELLED; every other status is itself.
 */
const PUBLIC_STATUS: Record<EmailStatus, PublicEmailStatus> = {
  SCHEDULED: 'SCHEDULED',
  QUEUED: 'QUEUED',
  SENT: 'SENT',
  DELIVERED: 'DELIVERED',
  OPENED: 'DELIVERED',
  CLICKED: 'DELIVERED',
  BOUNCED: 'BOUNCED',
  COMPLAINED: 'COMPLAINED',
  FAILED: 'FAILED',
  SUPPRESSED: 'SUPPRESSED',
  SKIPPED: 'CANCELLED',
  CANCELLED: 'CANCELLED',
};

/** What `GET /emails/{id}` answers. */
export interface EmailView {
  id: string;
  to: string;
  subject: string;
  status: PublicEmailStatus;
  scheduledAt: Date | null;
  sentAt: Date | null;
  contactId: string | null;
  createdAt: Date;
}

/** An email record as the API shows it. */
export function emailView(email: Email): EmailView {
  return {
    id: email.id,
    to: email.toEmail,
    subject: email.subject,
    status: PUBLIC_STATUS[email.status],
    scheduledAt: email.scheduledAt,
    sentAt: email.sentAt,
    contactId: email.contactId,
    createdAt: email.createdAt,
  };
}

/**
 * `/emails/{id}`: one email of the project, and the cancel of a scheduled one. The cancel is
 * one row update (SCHEDULED -> CANCELLED) that the release at the email's time also races
 * for (SCHEDULED -> QUEUED), so exactly one of them happens; the waiting workflow is then
 * signalled and ends at once (if the signal fails, it finds the email CANCELLED at its time and
 * ends without sending). A signal rather than a cancel of the execution: a cancel that reaches
 * an execution while an activity it waits for completes was seen to leave the execution stuck
 * (TypeScript SDK 1.24), and a cancel may race the release.
 */
export class EmailsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: Client | undefined,
  ) {}

  /** The email; 404 when the project has none with this id. */
  async get(projectId: string, id: string): Promise<EmailView> {
    const email = await findProjectEmail(this.dataSource.manager, projectId, id);
    if (!email) throw notFound('Email');
    return emailView(email);
  }

  /** Cancels a SCHEDULED email; 409 INVALID_STATE for any other status, 404 when the project has no such email. */
  async cancel(projectId: string, id: string): Promise<EmailView> {
    if (!(await cancelScheduledEmail(this.dataSource.manager, id, projectId))) {
      const { status } = await this.get(projectId, id);
      throw conflict(`A ${status} email cannot be cancelled; only a SCHEDULED one can`, 'INVALID_STATE', { status });
    }
    try {
      await this.temporal?.workflow.getHandle(emailWorkflowId(id)).signal(scheduledEmailCancelled);
    } catch (err) {
      logger.warn({ err, emailId: id }, 'could not tell the email workflow of its cancel; it ends at its time, finding the email CANCELLED');
    }
    return this.get(projectId, id);
  }
}
