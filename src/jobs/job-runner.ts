import type { DataSource, EntityManager } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import { Job, JobUpload, type JobError, type JobStatus } from '../entities/job';
import { countRows, readColumns, readRows, rowToInput, type CsvRow } from './csv';

/** Rows upserted per transaction during an import. */
export const IMPORT_CHUNK = 1000;
/** Contacts changed per transaction during a bulk operation. */
export const BULK_CHUNK = 200;
const MAX_ERRORS = 100;

/** Another attempt of the same job already recorded this chunk; this attempt must stop. */
export class StaleAttemptError extends Error {}

/** The outcome of one chunk, recorded in the same transaction as the chunk's writes. */
interface ChunkProgress {
  processed: number;
  succeeded: number;
  failed: number;
  errors: JobError[];
}

/**
 * Adds a chunk's progress to the job, only if the job is still where this attempt
 * found it; so a chunk is never counted (or written) twice by two attempts.
 */
async function recordProgress(manager: EntityManager, job: Job, progress: ChunkProgress): Promise<void> {
  const [, updated]: [unknown, number] = await manager.query(
    `UPDATE jobs
        SET processed = processed + $3, succeeded = succeeded + $4, failed = failed + $5,
            errors = jsonb_path_query_array(errors || $6::jsonb, '$[0 to ${MAX_ERRORS - 1}]')
      WHERE id = $1 AND processed = $2 AND status = 'RUNNING'`,
    [job.id, job.processed, progress.processed, progress.succeeded, progress.failed, JSON.stringify(progress.errors)],
  );
  if (updated !== 1) throw new StaleAttemptError(`job ${job.id} moved on without this attempt`);
  job.processed += progress.processed;
}

/** Runs background jobs chunk by chunk; each chunk's writes and progress commit together, so a retry resumes exactly. */
export class JobRunner {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
  ) {}

  /** Marks a queued job RUNNING (counting its rows first for an import) and returns it; null when already finished. */
  async begin(jobId: string): Promise<Job | null> {
    const jobs = this.dataSource.getRepository(Job);
    const job = await jobs.findOneByOrFail({ id: jobId });
    if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return null;
    if (job.status === 'QUEUED') {
      const total = job.type === 'IMPORT' ? await countRows(await this.upload(jobId)) : job.total;
      await jobs.update({ id: jobId, status: 'QUEUED' }, { status: 'RUNNING', total });
    }
    return jobs.findOneByOrFail({ id: jobId });
  }

  /** Ends a job in a final state, once. */
  async finish(jobId: string, status: Extract<JobStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>, message?: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE jobs SET status = $2, completed_at = now(),
              errors = CASE WHEN $3::text IS NULL THEN errors ELSE errors || jsonb_build_array(jsonb_build_object('message', $3::text)) END
        WHERE id = $1 AND status IN ('QUEUED', 'RUNNING')`,
      [jobId, status, message ?? null],
    );
    await this.dataSource.getRepository(JobUpload).delete({ jobId });
  }

  /** Imports the rows of a job's CSV from where the job stands; `afterChunk` runs after each commit. */
  async runImport(job: Job, afterChunk: (processed: number) => void): Promise<void> {
    const content = await this.upload(job.id);
    const columns = await readColumns(content);
    let chunk: CsvRow[] = [];
    const flush = async () => {
      const rows = chunk;
      chunk = [];
      const inputs = rows.map((row) => ({ row: row.row, input: rowToInput(columns, row.cells) }));
      const valid = inputs.flatMap(({ input }) => ('error' in input ? [] : [input]));
      const errors = inputs.flatMap(({ row, input }) => ('error' in input ? [{ row, message: input.error }] : []));
      await this.contacts.transaction(async (tx) => {
        if (valid.length > 0) await this.contacts.upsertMany(tx, job.projectId, valid, true);
        await recordProgress(tx.manager, job, { processed: rows.length, succeeded: valid.length, failed: errors.length, errors });
      });
      afterChunk(job.processed);
    };
    for await (const row of readRows(content, job.processed)) {
      chunk.push(row);
      if (chunk.length === IMPORT_CHUNK) await flush();
    }
    if (chunk.length > 0) await flush();
  }

  /** Applies a bulk operation to the job's contact ids from where the job stands. */
  async runBulk(job: Job, afterChunk: (processed: number) => void): Promise<void> {
    const ids = (job.input.contactIds as string[]) ?? [];
    while (job.processed < ids.length) {
      const batch = ids.slice(job.processed, job.processed + BULK_CHUNK);
      await this.contacts.transaction(async (tx) => {
        const done =
          job.type === 'BULK_DELETE'
            ? await this.contacts.deleteMany(tx, job.projectId, batch)
            : await this.contacts.setSubscribed(tx, job.projectId, batch, job.type === 'BULK_SUBSCRIBE');
        const found = new Set(done);
        const errors = batch.filter((id) => !found.has(id)).map((contactId) => ({ contactId, message: 'Contact not found' }));
        await recordProgress(tx.manager, job, { processed: batch.length, succeeded: found.size, failed: errors.length, errors });
      });
      afterChunk(job.processed);
    }
  }

  private async upload(jobId: string): Promise<Buffer> {
    return (await this.dataSource.getRepository(JobUpload).findOneByOrFail({ jobId })).content;
  }
}
