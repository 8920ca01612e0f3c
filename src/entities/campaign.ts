import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Condition } from '../conditions/condition';
import type { EmailType } from './template';

export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

/** One email to an audience, sent now or at `scheduledFor` by workflow `campaign/<id>`. */
@Entity('campaigns')
export class Campaign {
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
  @Column({ type: 'text' }) status: CampaignStatus;
  @Column({ type: 'text' }) audienceType: AudienceType;
  @Column({ type: 'uuid', nullable: true }) segmentId: string | null;
  @Column({ type: 'jsonb', nullable: true }) audienceCondition: Condition | null;
  @Column({ type: 'timestamptz', nullable: true }) scheduledFor: Date | null;
  @Column({ type: 'int' }) totalRecipients: number;
  @Column({ type: 'int' }) sentCount: number;
  @Column({ type: 'int' }) deliveredCount: number;
  @Column({ type: 'int' }) openedCount: number;
  @Column({ type: 'int' }) clickedCount: number;
  @Column({ type: 'int' }) bouncedCount: number;
  @Column({ type: 'int' }) complainedCount: number;
  @Column({ type: 'text', nullable: true }) stoppedReason: string | null;
  @Column({ type: 'timestamptz', nullable: true }) sentAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
