import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const EMAIL_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** A reusable email: subject and HTML body with Liquid placeholders, and its sender. */
@Entity('templates')
export class Template {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text' }) subject: string;
  @Column({ type: 'text' }) body: string;
  @Column({ type: 'text' }) from: string;
  @Column({ type: 'text', nullable: true }) fromName: string | null;
  @Column({ type: 'text', nullable: true }) replyTo: string | null;
  @Column({ type: 'text' }) type: EmailType;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
