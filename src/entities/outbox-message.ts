import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A message kept by the `outbox` transport instead of leaving the machine. */
@Entity('outbox_messages')
export class OutboxMessage {
  @PrimaryGeneratedColumn('uuid') id: string;
  /** The project the message was sent for; null for Herald's own account mail. */
  @Column({ type: 'uuid', nullable: true }) projectId: string | null;
  @Column({ type: 'text' }) messageId: string;
  @Column({ type: 'text' }) from: string;
  @Column({ type: 'text', array: true }) to: string[];
  @Column({ type: 'text', nullable: true }) replyTo: string | null;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'text' }) html: string;
  @Column({ type: 'text' }) text: string;
  @Column({ type: 'jsonb', default: {} }) headers: Record<string, string>;
  @Column({ type: 'jsonb', default: [] }) attachments: { filename: string; contentType: string; size: number }[];
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
