import { Column, CreateDateColumn, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

export const JOB_TYPES = ['IMPORT', 'BULK_SUBSCRIBE', 'BULK_UNSUBSCRIBE', 'BULK_DELETE'] as const;
export type JobType = (typeof JOB_TYPES)[number];
export type JobStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/** One problem a job met, kept for the status answer (first 100 only). */
export interface JobError {
  row?: number;
  contactId?: string;
  message: string;
}

/** A background job (CSV import or bulk operation) run by a Temporal workflow. */
@Entity('jobs')
export class Job {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) type: JobType;
  @Column({ type: 'text' }) status: JobStatus;
  @Column({ type: 'int' }) total: number;
  @Column({ type: 'int' }) processed: number;
  @Column({ type: 'int' }) succeeded: number;
  @Column({ type: 'int' }) failed: number;
  @Column({ type: 'jsonb' }) errors: JobError[];
  @Column({ type: 'jsonb' }) input: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
}

/** The uploaded file of an import job, kept in Postgres so any worker can read it. */
@Entity('job_uploads')
export class JobUpload {
  @PrimaryColumn({ type: 'uuid' }) jobId: string;
  @Column({ type: 'text' }) filename: string;
  @Column({ type: 'bytea' }) content: Buffer;
}
