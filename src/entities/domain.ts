import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type DomainStatus = 'PENDING' | 'VERIFIED' | 'FAILED';

/** A DNS record the domain's owner adds, with whether the last check found it. */
export interface DomainRecord {
  type: 'CNAME' | 'TXT' | 'MX';
  name: string;
  value: string;
  priority?: number;
  status: 'PENDING' | 'VERIFIED';
}

/** A sender domain of a project, verified over DNS before mail may be sent from it. */
@Entity('domains')
export class Domain {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) domain: string;
  @Column({ type: 'text' }) status: DomainStatus;
  @Column({ type: 'jsonb' }) records: DomainRecord[];
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) verifiedAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) lastCheckedAt: Date | null;
  /** When it last became PENDING (added, or fallen back from VERIFIED): the claim lapses 7 days later. */
  @Column({ type: 'timestamptz' }) pendingSince: Date;
}
