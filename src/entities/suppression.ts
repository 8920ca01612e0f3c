import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export type SuppressionReason = 'BOUNCE' | 'COMPLAINT' | 'MANUAL';
/** An entry covers one address (`EMAIL`) or every address at a domain (`DOMAIN`). */
export type SuppressionType = 'EMAIL' | 'DOMAIN';

/** An address or a whole domain a project never sends to (hard bounce, complaint, or added by hand). */
@Entity('suppressions')
export class Suppression {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  /** The address (lower-case) or the domain (lower-case), as `type` says. */
  @PrimaryColumn({ type: 'text' }) value: string;
  @Column({ type: 'text' }) type: SuppressionType;
  @Column({ type: 'text' }) reason: SuppressionReason;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
