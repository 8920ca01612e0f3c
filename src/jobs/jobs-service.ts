import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Job, JobType } from '../entities/job';
import { ApiError, notFound, validationError } from '../http/errors';
import { isUuid } from '../http/validate';
import { CsvError, readColumns } from './csv';
import * as queries from './jobs-queries';
import { bulkContacts, importContacts } from '../../workflows/jobs';
import { jobSummary, jobWorkflowId } from '../../workflows/shared';

/** A job as the API shows it. */
export function jobView(job: Job) {
  return {
    jobId: job.id,
    type: job.type,
    status: job.status,
    total: job.total,
    processed: job.processed,
    succeeded: job.succeeded,
    failed: job.failed,
    errors: job.errors,
    createdAt: job.createdAt,
    completedAt: job.completedAt,
  };
}

export type BulkType = Exclude<JobType, 'IMPORT'>;

/** Queues imports and bulk operations as durable workflows (`import/<jobId>`, `bulk/<jobId>`) and reports on them. */
export class JobsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  /** Checks the CSV's header, stores the upload and starts its import workflow. */
  async queueImport(projectId: string, filename: string, content: Buffer): Promise<{ jobId: string }> {
    try {
      await readColumns(content);
    } catch (err) {
      if (err instanceof CsvError) throw validationError([{ field: 'file', code: 'invalid_csv', message: err.message }]);
      throw err;
    }
    const job = await this.dataSource.transaction(async (manager) => {
      const created = await queries.insertJob(manager, this.newJob(projectId, 'IMPORT', 0, { filename }));
      await queries.insertJobUpload(manager, created.id, filename, content);
      return created;
    });
    await this.start(importContacts, job, jobSummary('IMPORT', { filename, bytes: content.length }));
    return { jobId: job.id };
  }

  /** Stores a bulk operation over contact ids and starts its workflow. */
  async queueBulk(projectId: string, type: BulkType, contactIds: string[]): Promise<{ jobId: string }> {
    const ids = [...new Set(contactIds)];
    const job = await queries.insertJob(this.dataSource.manager, this.newJob(projectId, type, ids.length, { contactIds: ids }));
    await this.start(bulkContacts, job, jobSummary(type, { contacts: ids.length }));
    return { jobId: job.id };
  }

  /** A job of the project of the given kind; 404 otherwise. */
  async get(projectId: string, jobId: string, kind: 'import' | 'bulk'): Promise<Job> {
    const job = isUuid(jobId) ? await queries.findProjectJob(this.dataSource.manager, projectId, jobId) : null;
    if (!job || (kind === 'import') !== (job.type === 'IMPORT')) throw notFound('Job');
    return job;
  }

  private newJob(projectId: string, type: JobType, total: number, input: Record<string, unknown>): Partial<Job> {
    return { projectId, type, status: 'QUEUED', total, processed: 0, succeeded: 0, failed: 0, errors: [], input };
  }

  /** Starts the job's workflow; if Temporal cannot take it, the job is marked FAILED and the caller told. */
  private async start(workflow: typeof importContacts | typeof bulkContacts, job: Job, staticSummary: string): Promise<void> {
    try {
      if (!this.temporal) throw new Error('no Temporal client');
      await this.temporal.workflow.start(workflow, { taskQueue: this.taskQueue, workflowId: jobWorkflowId(job), args: [job.id], staticSummary });
    } catch (err) {
      await queries.failJob(this.dataSource.manager, job.id, 'The job could not be queued');
      throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Background jobs are unavailable right now; try again shortly', {
        details: { reason: (err as Error).message },
      });
    }
  }
}
