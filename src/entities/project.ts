import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A tenant: owns contacts, templates, campaigns and everything else. */
@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'boolean', default: false }) disabled: boolean;
  @Column({ type: 'text', nullable: true }) disabledReason: string | null;
  /** Start of the bounce and complaint rate window when later than 7 days ago (set when a suspension is lifted). */
  @Column({ type: 'timestamptz', nullable: true }) reputationSince: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
