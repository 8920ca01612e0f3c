import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import type { ExecutionRef, GraphStep, RecordedStepResult, StepEnd } from '../workflows/shared';
import type { Condition } from '../src/conditions/condition';
import type { Config } from '../src/config';
import type { ContactsService } from '../src/contacts/contacts-service';
import type { Delivery } from '../src/sending/delivery';
import { evaluateCondition, updateContact, type UpdateContactConfig } from '../src/automations/contact-steps';
import { EmailStep, type EmailStepResult, type SendEmailConfig } from '../src/automations/email-step';
import { ExecutionNotFoundError, PermanentStepError } from '../src/automations/errors';
import { ExecutionRecords, type ActiveStatus, type FinalStatus } from '../src/automations/execution-records';
import type { WebhookResponse } from '../src/automations/webhook-client';
import { WebhookStep, type WebhookConfig } from '../src/automations/webhook-step';

/** Attempts after which a missing execution record counts as never committed (or deleted after its triggered start was refused). */
const MISSING_RECORD_ATTEMPTS = 5;

/**
 * Runs a write of the execution record. A record not found may be one whose start has not
 * committed yet (an API start's workflow starts inside that transaction): the attempt is retried,
 * and after MISSING_RECORD_ATTEMPTS the record counts as never committed, or deleted after its
 * triggered start failed (false).
 */
async function whileRecordMissing(write: () => Promise<boolean>): Promise<boolean> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof ExecutionNotFoundError)) throw err;
    if (Context.current().info.attempt >= MISSING_RECORD_ATTEMPTS) return false;
    throw ApplicationFailure.create({ message: err.message, type: 'ExecutionNotFound' });
  }
}

/** Runs a step; a PermanentStepError ends it at once (non-retryable), anything else is retried by Temporal. */
async function step<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PermanentStepError) throw ApplicationFailure.create({ message: err.message, type: 'PermanentStepError', nonRetryable: true });
    throw err;
  }
}

/** The calls a step recorded and run in one goes through: the execution record's moves and the step's own activity. */
export interface RecordedStepCalls {
  recordExecutionStep(executionId: string, stepId: string, status: ActiveStatus): Promise<boolean>;
  finishExecution(executionId: string, status: FinalStatus, error?: string | null, stepId?: string): Promise<boolean>;
  sendWorkflowEmail(execution: ExecutionRef, stepId: string, config: SendEmailConfig): Promise<unknown>;
  evaluateCondition(projectId: string, contactId: string, condition: Condition, eventData?: Record<string, unknown>): Promise<boolean>;
  updateWorkflowContact(projectId: string, contactId: string, config: UpdateContactConfig): Promise<unknown>;
}

/**
 * Records a SEND_EMAIL, CONDITION or UPDATE_CONTACT step as the execution's current one
 * (RUNNING) and runs it, as recordExecutionStep and that step's activity would one after the
 * other: STOPPED when the execution already ended (nothing is run), the branch a CONDITION chose,
 * or null to go on along the plain transition. With `end` (a SEND_EMAIL or UPDATE_CONTACT step
 * whose plain transition ends the execution) it then ends the execution as finishExecution would:
 * ENDED, or STOPPED when the record had ended meanwhile. Safe to run again: the record is
 * rewritten, the step's activity is itself safe to repeat, and an ended record is never reopened.
 */
export function recordAndRunStepWith(calls: RecordedStepCalls) {
  const ended = async (executionId: string, end: StepEnd): Promise<RecordedStepResult> =>
    (await (end.status === 'EXITED' ? calls.finishExecution(executionId, 'EXITED', null, end.stepId) : calls.finishExecution(executionId, 'COMPLETED'))) ? 'ENDED' : 'STOPPED';
  return async (execution: ExecutionRef, graphStep: GraphStep, end?: StepEnd): Promise<RecordedStepResult> => {
    if (!(await calls.recordExecutionStep(execution.executionId, graphStep.id, 'RUNNING'))) return 'STOPPED';
    const { config } = graphStep;
    switch (graphStep.type) {
      case 'SEND_EMAIL':
        await calls.sendWorkflowEmail(execution, graphStep.id, config as SendEmailConfig);
        return end ? ended(execution.executionId, end) : null;
      case 'CONDITION':
        return (await calls.evaluateCondition(execution.projectId, execution.contactId, config.condition as Condition, execution.eventData)) ? 'yes' : 'no';
      case 'UPDATE_CONTACT':
        await calls.updateWorkflowContact(execution.projectId, execution.contactId, config as UpdateContactConfig);
        return end ? ended(execution.executionId, end) : null;
      default:
        throw ApplicationFailure.create({ message: `Step "${graphStep.name}" (${graphStep.type}) is not recorded and run in one call`, type: 'InvalidStepConfig', nonRetryable: true });
    }
  };
}

/** Activities of the `wf-exec/<executionId>` workflow: one per step type, and the execution record's moves. */
export function createWorkflowStepActivities(deps: { dataSource: DataSource; config: Config; contacts: ContactsService; delivery: Delivery }) {
  const records = new ExecutionRecords(deps.dataSource, deps.delivery);
  const emails = new EmailStep(deps.dataSource, deps.delivery, records);
  const webhooks = new WebhookStep(deps.dataSource, deps.config);
  const activities = {
    /** Records the step an execution is at (WAITING during DELAY and WAIT_FOR_EVENT); false when the execution already ended. */
    async recordExecutionStep(executionId: string, stepId: string, status: ActiveStatus): Promise<boolean> {
      return whileRecordMissing(() => records.recordStep(executionId, stepId, status));
    },

    /**
     * Ends an execution still under way: COMPLETED, EXITED (at its EXIT step, when given), FAILED
     * (with the reason) or CANCELLED. True when this call ended it; an end at a step waits for
     * the record as recordExecutionStep does (false when it never comes).
     */
    async finishExecution(executionId: string, status: FinalStatus, error?: string | null, stepId?: string): Promise<boolean> {
      return whileRecordMissing(() => records.finish(executionId, status, error, stepId));
    },

    /** SEND_EMAIL: writes and delivers the step's one email, or skips it (suppressed, unsubscribed from MARKETING). */
    async sendWorkflowEmail(execution: ExecutionRef, stepId: string, config: SendEmailConfig): Promise<EmailStepResult> {
      return step(() => emails.send(execution, stepId, config));
    },

    /** CONDITION: whether the contact matches the condition (`event.data.<key>` reads the triggering event). */
    async evaluateCondition(projectId: string, contactId: string, condition: Condition, eventData?: Record<string, unknown>): Promise<boolean> {
      return evaluateCondition(deps.dataSource, projectId, contactId, condition, eventData);
    },

    /** WEBHOOK: one call (10 s timeout); non-public targets and 4xx answers (but 408, 429) fail for good. */
    async callWebhook(execution: ExecutionRef, stepId: string, config: WebhookConfig): Promise<WebhookResponse> {
      return step(() => webhooks.call(execution, stepId, config));
    },

    /** UPDATE_CONTACT: patches the contact's data and subscription through the contact rules; false when it was deleted; a refusal (data key limit) fails it for good. */
    async updateWorkflowContact(projectId: string, contactId: string, config: UpdateContactConfig): Promise<boolean> {
      return step(() => updateContact(deps.contacts, projectId, contactId, config));
    },

    /**
     * Records a SEND_EMAIL, CONDITION or UPDATE_CONTACT step as the execution's current one
     * (RUNNING) and runs it, and with `end` ends the execution after it, in one call (recordAndRunStepWith).
     */
    async recordAndRunStep(execution: ExecutionRef, graphStep: GraphStep, end?: StepEnd): Promise<RecordedStepResult> {
      return recordAndRunStepWith(recordedCalls)(execution, graphStep, end);
    },
  };
  /** The step's own work right after its record found the execution under way: the email step does not ask again. */
  const recordedCalls: RecordedStepCalls = {
    ...activities,
    sendWorkflowEmail: (execution, stepId, config) => step(() => emails.send(execution, stepId, config, true)),
  };
  return activities;
}
