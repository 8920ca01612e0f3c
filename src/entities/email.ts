import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { EmailType } from './template';

export type EmailSource = 'SEND' | 'CAMPAIGN' | 'WORKFLOW' | 'TEST';
/**
 * An email's progress; mail events only ever move it forward (see src/sending/status.ts). A
 * `/v1/send` email with `scheduledAt` is SCHEDULED until its time (then QUEUED) or CANCELLED.
 */
export type EmailStatus =
  | 'SCHEDULED'
  | 'QUEUED'
  | 'SENT'
  | 'DELIVERED'
  | 'OPENED'
  | 'CLICKED'
  | 'BOUNCED'
  | 'COMPLAINED'
  | 'FAILED'
  | 'SUPPRESSED'
  | 'SKIPPED'
  | 'CANCELLED';

/**
 * One message to one recipient. Subject and body are kept as written (with Liquid
 * placeholders) beside the variables, and rendered by the delivery workflow. The body,
 * headers and variables are the record's own, or (`contentId`) those of the content it
 * shares with the other recipients of its `/v1/send` request, which also holds the attachments.
 */
@Entity('emails')
export class Email {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'uuid', nullable: true }) contactId: string | null;
  @Column({ type: 'uuid', nullable: true }) templateId: string | null;
  @Column({ type: 'uuid', nullable: true }) campaignId: string | null;
  @Column({ type: 'text' }) source: EmailSource;
  @Column({ type: 'text' }) type: EmailType;
  @Column({ type: 'text' }) toEmail: string;
  @Column({ type: 'text', nullable: true }) toName: string | null;
  @Column({ type: 'text' }) from: string;
  @Column({ type: 'text', nullable: true }) fromName: string | null;
  @Column({ type: 'text', nullable: true }) replyTo: string | null;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'uuid', nullable: true }) contentId: string | null;
  @Column({ type: 'jsonb' }) headers: Record<string, string>;
  @Column({ type: 'jsonb' }) variables: Record<string, unknown>;
  @Column({ type: 'text' }) status: EmailStatus;
  @Column({ type: 'text', nullable: true }) messageId: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'int' }) attempts: number;
  /** When a scheduled `/v1/send` email is (or was) due; null for every other email. */
  @Column({ type: 'timestamptz', nullable: true }) scheduledAt: Date | null;
  /** A send-queue email's next attempt time (src/sending/send-lanes.ts); null for emails other workflows deliver. */
  @Column({ type: 'timestamptz', nullable: true }) dueAt: Date | null;
  /** The Temporal task queue whose send lanes deliver it (a send-queue email's). */
  @Column({ type: 'text', nullable: true }) sendQueue: string | null;
  /** The send lane attempting it now; null while it waits. */
  @Column({ type: 'smallint', nullable: true }) sendLane: number | null;
  /** The pass of that lane holding it (each pass claims under a token of its own). */
  @Column({ type: 'uuid', nullable: true }) sendClaim: string | null;
  @Column({ type: 'timestamptz', nullable: true }) sentAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) deliveredAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) openedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) clickedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) bouncedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) complainedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** What every recipient of one `/v1/send` request shares, stored once and referenced by each email record. */
@Entity('email_contents')
export class EmailContent {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) body: string;
  /** A plain-text part sent as it is (SMTP relay messages); null: made from the rendered HTML. */
  @Column({ type: 'text', nullable: true }) text: string | null;
  /** Subject and body sent exactly as written, never read as Liquid (SMTP relay messages). */
  @Column({ type: 'boolean', default: false }) literal: boolean;
  @Column({ type: 'jsonb' }) headers: Record<string, string>;
  @Column({ type: 'jsonb' }) variables: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** A file attached to a shared content, in the order the request gave. */
@Entity('email_attachments')
export class EmailAttachment {
  @PrimaryColumn({ type: 'uuid' }) contentId: string;
  @PrimaryColumn({ type: 'int' }) position: number;
  @Column({ type: 'text' }) filename: string;
  @Column({ type: 'text' }) contentType: string;
  @Column({ type: 'bytea' }) content: Buffer;
  /** The Content-ID of an inline image the HTML shows by `cid:`; null for an attachment. */
  @Column({ type: 'text', nullable: true }) cid: string | null;
}
