import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One automatic suspension of a project for its bounce or complaint rate, and when it was lifted. */
@Entity('project_suspensions')
export class ProjectSuspension {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) reason: string;
  @Column({ type: 'int' }) sent: number;
  @Column({ type: 'int' }) bounced: number;
  @Column({ type: 'int' }) complained: number;
  @Column({ type: 'double precision' }) bounceRate: number;
  @Column({ type: 'double precision' }) complaintRate: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) liftedAt: Date | null;
  @Column({ type: 'uuid', nullable: true }) liftedBy: string | null;
}
