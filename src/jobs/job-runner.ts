import type { DataSource, EntityManager } from 'typeorm';
import type { ContactsService } from '../contacts/contacts-service';
import type { Job, JobStatus } from '../entities/job';
import * as queries from './jobs-queries';
import { countRows, readColumns, readRows, rowToInput, type CsvRow } from './csv';

/** Rows upserted per transaction during an import. */
export const IMPORT_CHUNK = 1000;
/** Contacts changed per transaction during a bulk operation. */
export const BULK_CHUNK = 200;

/** Another attempt of the same job already recorded this chunk; this attempt must stop. */
export class StaleAttemptError extends Error {}

/**
 * Adds a chunk's progress to the job, only if the job is still where this attempt
 * found it; so a chunk is never counted (or written) twice by two attempts.
 */
async function recordProgress(manager: EntityManager, job: Job, progress: queries.ChunkProgress): Promise<void> {
  if (!(await queries.addJobProgress(manager, job.id, job.processed, progress))) {
    throw new StaleAttemptError(`job ${job.id} moved on without this attempt`);
  }
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
    const { manager } = this.dataSource;
    const job = await queries.findJob(manager, jobId);
    if (job.status !== 'QUEUED' && job.status !== 'RUNNING') return null;
    if (job.status === 'QUEUED') {
      const total = job.type === 'IMPORT' ? await countRows(await queries.findJobUpload(manager, jobId)) : job.total;
      await queries.startJob(manager, jobId, total);
    }
    return queries.findJob(manager, jobId);
  }

  /** Ends a job in a final state, once. */
  async finish(jobId: string, status: Extract<JobStatus, 'COMPLETED' | 'FAILED' | 'CANCELLED'>, message?: string): Promise<void> {
    await queries.endJob(this.dataSource.manager, jobId, status, message);
    await queries.deleteJobUpload(this.dataSource.manager, jobId);
  }

  /** Imports the rows of a job's CSV from where the job stands; `afterChunk` runs after each commit. */
  async runImport(job: Job, afterChunk: (processed: number) => void): Promise<void> {
    const content = await queries.findJobUpload(this.dataSource.manager, job.id);
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
}
