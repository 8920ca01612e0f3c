import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { findContact, findContactByEmail } from '../contacts/contacts-queries';
import { normalizeEmail } from '../contacts/contacts-service';
import type { ExecutionStatus, WorkflowExecution } from '../entities/workflow';
import { ApiError, conflict, notFound, validationError } from '../http/errors';
import type { CursorParams } from '../http/pagination';
import { logger } from '../logger';
import { ACTIVE_STATUSES } from './execution-records';
import { cancelExecution, startExecution } from './start-execution';
import { graphProblems } from './graph';
import { inPool } from './pool';
import * as queries from './workflows-queries';

/** Who a manual start is for (one of `contactId` and `email`) and the execution's initial context. */
export interface ExecutionStart {
  contactId?: string;
  email?: string;
  context?: Record<string, unknown>;
}

/** How many executions cancel-all reads per page, and cancels at once. */
const CANCEL_PAGE = 200;
const CANCEL_CONCURRENCY = 10;

/** Executions of a workflow: starting one by hand, reading them, cancelling them. The engine runs them. */
export class ExecutionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  /**
   * Starts an execution for an existing contact, also while the workflow is disabled; the graph
   * must be able to run (422). 409 EXECUTION_ACTIVE when the contact has one running or waiting,
   * 409 REENTRY_NOT_ALLOWED when it went through the workflow before and `allowReentry` is false.
   */
  async start(projectId: string, workflowId: string, input: ExecutionStart): Promise<WorkflowExecution> {
    const manager = this.dataSource.manager;
    if (!(await queries.findWorkflow(manager, projectId, workflowId))) throw notFound('Workflow');
    const { steps, transitions } = await queries.graphOf(manager, workflowId);
    const problems = graphProblems(steps, transitions);
    if (problems.length > 0) throw validationError(problems, 'The workflow cannot run');
    const contactId = await this.contactOf(projectId, input);
    const execution = await startExecution(this.engine(), { projectId, workflowId, contactId, context: input.context });
    if (execution) return execution;
    if (await queries.hasActiveExecution(manager, workflowId, contactId)) {
      throw conflict('The contact already has a running or waiting execution of this workflow', 'EXECUTION_ACTIVE', { workflowId, contactId });
    }
    throw conflict('The contact already went through this workflow, which does not allow reentry', 'REENTRY_NOT_ALLOWED', { workflowId, contactId });
  }

  /** `limit + 1` executions of a workflow, newest first, optionally of one status, and the total for a first page. */
  async list(projectId: string, workflowId: string, status: ExecutionStatus | undefined, page: CursorParams<queries.ExecutionCursor>) {
    const manager = this.dataSource.manager;
    if (!(await queries.findWorkflow(manager, projectId, workflowId))) throw notFound('Workflow');
    const rows = await queries.readExecutions(manager, workflowId, status, page.limit + 1, page.cursor);
    return { rows, countTotal: () => queries.countExecutions(manager, workflowId, status) };
  }

  /** One execution of the workflow; 404 otherwise. */
  async get(projectId: string, workflowId: string, executionId: string): Promise<WorkflowExecution> {
    const execution = await queries.findExecution(this.dataSource.manager, projectId, workflowId, executionId);
    if (!execution) throw notFound('Execution');
    return execution;
  }

  /** Cancels a RUNNING or WAITING execution (409 EXECUTION_NOT_ACTIVE otherwise) and returns its record. */
  async cancel(projectId: string, workflowId: string, executionId: string): Promise<WorkflowExecution> {
    const execution = await this.get(projectId, workflowId, executionId);
    if (!(ACTIVE_STATUSES as readonly string[]).includes(execution.status)) {
      throw conflict(`The execution is ${execution.status}; only RUNNING or WAITING executions can be cancelled`, 'EXECUTION_NOT_ACTIVE', {
        executionId,
        status: execution.status,
      });
    }
    return cancelExecution(this.engine(), projectId, workflowId, executionId);
  }

  /** Cancels every RUNNING or WAITING execution of the workflow; answers how many were cancelled. */
  async cancelAll(projectId: string, workflowId: string): Promise<{ cancelled: number }> {
    const manager = this.dataSource.manager;
    if (!(await queries.findWorkflow(manager, projectId, workflowId))) throw notFound('Workflow');
    const engine = this.engine();
    let cancelled = 0;
    for (let after: string | null = null; ; ) {
      const ids = await queries.activeExecutionIds(manager, workflowId, after, CANCEL_PAGE);
      await inPool(ids, CANCEL_CONCURRENCY, async (executionId) => {
        try {
          await cancelExecution(engine, projectId, workflowId, executionId);
          cancelled += 1;
        } catch (err) {
          logger.warn({ err, workflowId, executionId }, 'cancelling an execution failed');
        }
      });
      if (ids.length < CANCEL_PAGE) return { cancelled };
      after = ids[ids.length - 1];
    }
  }

  /** The contact of a manual start, by id or email; 404 when the project has no such contact. */
  private async contactOf(projectId: string, input: ExecutionStart): Promise<string> {
    const manager = this.dataSource.manager;
    const contact = input.contactId ? await findContact(manager, projectId, input.contactId) : await findContactByEmail(manager, projectId, normalizeEmail(input.email!));
    if (!contact) throw notFound('Contact');
    return contact.id;
  }

  private engine() {
    if (!this.temporal) throw new ApiError(503, 'SERVICE_UNAVAILABLE', 'Workflow executions are unavailable right now; try again shortly');
    return { dataSource: this.dataSource, temporal: this.temporal, taskQueue: this.taskQueue };
  }
}
