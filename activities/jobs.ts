import { ApplicationFailure, Context } from '@temporalio/activity';
import { ApiError } from '../src/http/errors';
import { CsvError } from '../src/jobs/csv';
import { JobRunner, StaleAttemptError } from '../src/jobs/job-runner';
import type { ContactsService } from '../src/contacts/contacts-service';
import type { DataSource } from 'typeorm';

/** Activities of the import and bulk workflows; each resumes from the progress the job recorded. */
export function createJobActivities(deps: { dataSource: DataSource; contacts: ContactsService }) {
  const runner = new JobRunner(deps.dataSource, deps.contacts);
  const heartbeat = (processed: number) => Context.current().heartbeat(processed);

  /**
   * Runs one attempt; an attempt overtaken by another one stops without error. A bad CSV, or
   * a chunk the contact rules refuse (the contacts cap, the data key limit: rolled back, earlier
   * chunks stay), fails the job for good.
   */
  const attempt = async (jobId: string, run: (job: NonNullable<Awaited<ReturnType<JobRunner['begin']>>>) => Promise<void>) => {
    const job = await runner.begin(jobId);
    if (!job) return;
    try {
      await run(job);
    } catch (err) {
      if (err instanceof StaleAttemptError) throw ApplicationFailure.create({ message: err.message, type: 'StaleAttempt' });
      if (err instanceof CsvError) throw ApplicationFailure.create({ message: err.message, nonRetryable: true });
      if (err instanceof ApiError && err.statusCode < 500) throw ApplicationFailure.create({ message: err.message, type: err.code, nonRetryable: true });
      throw err;
    }
  };

  return {
    /** Imports a CSV job's rows in chunks, heartbeating the row count. */
    async importRows(jobId: string): Promise<void> {
      await attempt(jobId, (job) => runner.runImport(job, heartbeat));
    },

    /** Applies a bulk job to its contacts in chunks, heartbeating the count. */
    async applyBulk(jobId: string): Promise<void> {
      await attempt(jobId, (job) => runner.runBulk(job, heartbeat));
    },

    /** Ends a job in a final state. */
    async finishJob(jobId: string, status: 'COMPLETED' | 'FAILED' | 'CANCELLED', message?: string): Promise<void> {
      await runner.finish(jobId, status, message);
    },
  };
}
