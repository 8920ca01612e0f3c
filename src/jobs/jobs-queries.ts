import type { EntityManager } from 'typeorm';
import { Job, JobUpload, type JobError, type JobStatus } from '../entities/job';

/** The most failures a job keeps for its status answer. */
export const MAX_JOB_ERRORS = 100;

/** Stores a new job and returns it with its id. */
export function insertJob(manager: EntityManager, job: Partial<Job>): Promise<Job> {
  return manager.save(manager.create(Job, job));
}

/** Stores the uploaded file an import job reads. */
export async function insertJobUpload(manager: EntityManager, jobId: string, filename: string, content: Buffer): Promise<void> {
  await manager.insert(JobUpload, { jobId, filename, content });
}

/** The uploaded file of an import job; throws when it is gone. */
export async function findJobUpload(manager: EntityManager, jobId: string): Promise<Buffer> {
  return (await manager.findOneByOrFail(JobUpload, { jobId })).content;
}

/** Deletes the uploaded file of a job, if any. */
export async function deleteJobUpload(manager: EntityManager, jobId: string): Promise<void> {
  await manager.delete(JobUpload, { jobId });
}

/** One job of a project, or null. */
export function findProjectJob(manager: EntityManager, projectId: string, id: string): Promise<Job | null> {
  return manager.findOneBy(Job, { projectId, id });
}

/** One job by id; throws when there is none. */
export function findJob(manager: EntityManager, id: string): Promise<Job> {
  return manager.findOneByOrFail(Job, { id });
}

/** Marks a job FAILED at once with one error, for a job whose workflow could not be started. */
export async function failJob(manager: EntityManager, id: string, message: string): Promise<void> {
  await manager.update(Job, { id }, { status: 'FAILED', completedAt: new Date(), errors: [{ message }] });
}

/** Moves a QUEUED job to RUNNING with its total; does nothing when another attempt moved it first. */
export async function startJob(manager: EntityManager, id: string, total: number): Promise<void> {
  await manager.update(Job, { id, status: 'QUEUED' }, { status: 'RUNNING', total });
}

/** Ends a QUEUED or RUNNING job in a final status, adding `message` to its errors when given. */
export async function endJob(manager: EntityManager, id: string, status: JobStatus, message: string | undefined): Promise<void> {
  await manager.query(
    `UPDATE jobs SET status = $2, completed_at = now(),
            errors = CASE WHEN $3::text IS NULL THEN errors ELSE errors || jsonb_build_array(jsonb_build_object('message', $3::text)) END
      WHERE id = $1 AND status IN ('QUEUED', 'RUNNING')`,
    [id, status, message ?? null],
  );
}

/** The outcome of one chunk, recorded in the same transaction as the chunk's writes. */
export interface ChunkProgress {
  processed: number;
  succeeded: number;
  failed: number;
  errors: JobError[];
}

/**
 * Adds a chunk's progress to a RUNNING job that has processed exactly `processedBefore`
 * (keeping the first MAX_JOB_ERRORS errors); whether the job was still there to update.
 */
export async function addJobProgress(manager: EntityManager, id: string, processedBefore: number, progress: ChunkProgress): Promise<boolean> {
  const [, updated]: [unknown, number] = await manager.query(
    `UPDATE jobs
        SET processed = processed + $3, succeeded = succeeded + $4, failed = failed + $5,
            errors = jsonb_path_query_array(errors || $6::jsonb, '$[0 to ${MAX_JOB_ERRORS - 1}]')
      WHERE id = $1 AND processed = $2 AND status = 'RUNNING'`,
    [id, processedBefore, progress.processed, progress.succeeded, progress.failed, JSON.stringify(progress.errors)],
  );
  return updated === 1;
}
