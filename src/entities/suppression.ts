import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type SuppressionReason = 'BOUNCE' | 'COMPLAINT' | 'MANUAL';

/** An address a project never sends to again (hard bounce, complaint, or added by hand). */
@Entity('suppressions')
export class Suppression {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  @PrimaryColumn({ type: 'text' }) email: string;
  @Column({ type: 'text' }) reason: SuppressionReason;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
