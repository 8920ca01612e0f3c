import { ActivityFailure, ApplicationFailure, condition, isCancellation, patched, proxyActivities, proxyLocalActivities, setHandler, sleep, TemporalFailure } from '@temporalio/workflow';
import type { createWorkflowStepActivities } from '../activities/workflow-steps';
import type { Condition } from '../src/conditions/condition';
import type { Branch } from '../src/entities/workflow';
import type { UpdateContactConfig } from '../src/automations/contact-steps';
import type { SendEmailConfig } from '../src/automations/email-step';
import type { WebhookConfig } from '../src/automations/webhook-step';
import { durationMs } from './graph';
import { eventReceived, type ExecutionRef, type GraphStep, type RecordedStepResult, type StepEnd } from './shared';

type StepActivities = ReturnType<typeof createWorkflowStepActivities>;

/** Retried for as long as the database is away. */
const RECORD_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
} as const;

/** Throttling and transient transport failures back off up to 5 minutes apart, for about an hour (as `email/<id>` does). */
const EMAIL_OPTIONS = {
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 16 },
} as const;

/** A call times out after 10 s (in the activity); five attempts, 5 s to a minute apart. */
const WEBHOOK_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
} as const;

/** One query or one contact write each. */
const QUERY_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
} as const;

/** The activities an execution calls, as it calls them. */
export type ExecutionActivities = Pick<
  StepActivities,
  'recordExecutionStep' | 'finishExecution' | 'sendWorkflowEmail' | 'callWebhook' | 'evaluateCondition' | 'updateWorkflowContact' | 'recordAndRunStep'
>;

type RecordAndRunStep = StepActivities['recordAndRunStep'];

/** recordAndRunStep with a SEND_EMAIL step's options for that step, a query's for CONDITION and UPDATE_CONTACT. */
function byStepType(email: RecordAndRunStep, query: RecordAndRunStep): RecordAndRunStep {
  return (execution, step, end) => (step.type === 'SEND_EMAIL' ? email : query)(execution, step, end);
}

/** Every call an activity task of its own, as executions that started before `contact-workflow-local-steps` make them. */
const TASK_ACTIVITIES: ExecutionActivities = {
  ...pick(proxyActivities<StepActivities>(RECORD_OPTIONS), 'recordExecutionStep', 'finishExecution'),
  ...pick(proxyActivities<StepActivities>(EMAIL_OPTIONS), 'sendWorkflowEmail'),
  ...pick(proxyActivities<StepActivities>(WEBHOOK_OPTIONS), 'callWebhook'),
  ...pick(proxyActivities<StepActivities>(QUERY_OPTIONS), 'evaluateCondition', 'updateWorkflowContact'),
  recordAndRunStep: byStepType(proxyActivities<StepActivities>(EMAIL_OPTIONS).recordAndRunStep, proxyActivities<StepActivities>(QUERY_OPTIONS).recordAndRunStep),
};

/**
 * A local activity's attempts before its call goes to an activity task (1 + 2 + 4 + 8 s apart):
 * a database or SES outage is then waited out by the activity task's retries, which leave
 * nothing in the workflow's history, instead of by a local activity that keeps its workflow task
 * open (a workflow task heartbeat every few seconds, each three history events).
 */
const LOCAL_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '8 seconds', maximumAttempts: 5 } as const;

/** The patch after which a local activity that used up its attempts hands its call to an activity task. */
export const LOCAL_FALLBACK_PATCH = 'contact-workflow-local-fallback';

/**
 * Whether a local activity failed only because it used up its attempts or timed out: not for
 * good (a non-retryable failure) and not cancelled. The SDK rejects a local activity with its
 * last failure itself, an activity task with an ActivityFailure around it.
 */
function retriedOut(err: unknown): boolean {
  if (isCancellation(err)) return false;
  const cause = err instanceof ActivityFailure ? err.cause : err;
  return cause instanceof ApplicationFailure ? !cause.nonRetryable : cause instanceof TemporalFailure;
}

/**
 * A call made as a local activity first, then as an activity task once the local attempts are
 * used up, if `fallsBack()` (asked then) says so.
 */
function localFirst<A extends unknown[], R>(
  local: (...args: A) => Promise<R>,
  task: (...args: A) => Promise<R>,
  fallsBack: () => boolean,
): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await local(...args);
    } catch (err) {
      if (!retriedOut(err) || !fallsBack()) throw err;
      return task(...args);
    }
  };
}

/**
 * The execution record, CONDITION, UPDATE_CONTACT and SEND_EMAIL as local activities: run by the
 * worker inside the workflow task that asks for them and recorded as a marker when that task
 * completes, so that a step costs no activity task and no workflow task of its own (a
 * `DELAY -> SEND_EMAIL -> EXIT` execution takes two workflow tasks instead of seven). Each is
 * safe to run again, as an activity's retry is: a worker killed meanwhile leaves the workflow
 * task to time out and the next worker runs them again (an email whose delivery call was in
 * flight at the kill may be sent twice, as with an activity task). After LOCAL_RETRY's attempts
 * a call goes on as an activity task with the options above. Webhooks, whose calls may take
 * seconds, stay activity tasks.
 */
const LOCAL_EMAIL = proxyLocalActivities<StepActivities>({ startToCloseTimeout: EMAIL_OPTIONS.startToCloseTimeout, retry: LOCAL_RETRY });
const LOCAL_QUERY = proxyLocalActivities<StepActivities>({ startToCloseTimeout: QUERY_OPTIONS.startToCloseTimeout, retry: LOCAL_RETRY });
const LOCAL = {
  ...pick(proxyLocalActivities<StepActivities>({ startToCloseTimeout: RECORD_OPTIONS.startToCloseTimeout, retry: LOCAL_RETRY }), 'recordExecutionStep', 'finishExecution'),
  ...pick(LOCAL_EMAIL, 'sendWorkflowEmail'),
  ...pick(LOCAL_QUERY, 'evaluateCondition', 'updateWorkflowContact'),
  recordAndRunStep: byStepType(LOCAL_EMAIL.recordAndRunStep, LOCAL_QUERY.recordAndRunStep),
};

/** Every call but webhooks local first; a call whose local attempts are used up goes on as an activity task if `fallsBack()`. */
function localActivities(fallsBack: () => boolean): ExecutionActivities {
  return {
    recordExecutionStep: localFirst(LOCAL.recordExecutionStep, TASK_ACTIVITIES.recordExecutionStep, fallsBack),
    finishExecution: localFirst(LOCAL.finishExecution, TASK_ACTIVITIES.finishExecution, fallsBack),
    sendWorkflowEmail: localFirst(LOCAL.sendWorkflowEmail, TASK_ACTIVITIES.sendWorkflowEmail, fallsBack),
    callWebhook: TASK_ACTIVITIES.callWebhook,
    evaluateCondition: localFirst(LOCAL.evaluateCondition, TASK_ACTIVITIES.evaluateCondition, fallsBack),
    updateWorkflowContact: localFirst(LOCAL.updateWorkflowContact, TASK_ACTIVITIES.updateWorkflowContact, fallsBack),
    recordAndRunStep: localFirst(LOCAL.recordAndRunStep, TASK_ACTIVITIES.recordAndRunStep, fallsBack),
  };
}

/** runWorkflowExecution's local activities: the fall-back to an activity task behind `contact-workflow-local-fallback`. */
const LOCAL_ACTIVITIES = localActivities(() => patched(LOCAL_FALLBACK_PATCH));

/** The activities of runWorkflowExecutionV2: local first, always falling back to an activity task. */
export const CURRENT_ACTIVITIES = localActivities(() => true);

/** The named members of a proxy (a proxy lists no keys of its own, so it cannot be spread). */
function pick<T, K extends keyof T>(from: T, ...keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, from[key]])) as Pick<T, K>;
}

/** The patch that moved every call but webhooks to local activities. */
export const LOCAL_STEPS_PATCH = 'contact-workflow-local-steps';

/**
 * The activities of this execution: local ones but for webhooks when it started with
 * `contact-workflow-local-steps` (every execution since), activity tasks for all calls when it
 * started before; asked once, before the execution's first command.
 */
export function executionActivities(): ExecutionActivities {
  return patched(LOCAL_STEPS_PATCH) ? LOCAL_ACTIVITIES : TASK_ACTIVITIES;
}

/** How a step ended: the branch it chose (CONDITION, WAIT_FOR_EVENT), EXIT, or undefined to go on along the plain transition. */
export type StepResult = Branch | 'EXIT' | undefined;

/**
 * Records a SEND_EMAIL, CONDITION or UPDATE_CONTACT step and runs it in one call, which also
 * writes `end` when given (ENDED). When that call used up its attempts (an outage longer than the
 * step's retries), the record is written by a call of its own, retried for as long as the
 * database is away as every record is, and the step runs again with its own attempts (the end is
 * then left to the caller): an execution that wakes during a database outage waits for the
 * database instead of failing.
 */
export async function recordAndRunInstantStep(
  activities: ExecutionActivities,
  step: GraphStep,
  execution: ExecutionRef,
  inbox: EventInbox,
  end?: StepEnd,
): Promise<RecordedStepResult> {
  try {
    return await activities.recordAndRunStep(execution, step, end);
  } catch (err) {
    if (!retriedOut(err)) throw err;
  }
  if (!(await activities.recordExecutionStep(execution.executionId, step.id, 'RUNNING'))) return 'STOPPED';
  const result = await runStep(activities, step, execution, inbox);
  return result === 'yes' || result === 'no' ? result : null;
}

/** The events signalled to the execution, as a WAIT_FOR_EVENT step sees them. */
export interface EventInbox {
  /** Forgets the events received so far; called as the execution moves to its next step. */
  clear(): void;
  /** Whether an event of that name arrived since the step began, or arrives before the timeout (if any). */
  waitFor(eventName: string, timeoutMs?: number): Promise<boolean>;
}

/**
 * Listens for `eventReceived`; opened when the execution starts so that no signal finds it
 * without a handler. Only the names are kept, and only since the current step began: an
 * event that arrives while the step is being recorded still counts for its wait. An event
 * signalled again (its dispatch was repeated) is taken once.
 */
export function openEventInbox(): EventInbox {
  const names = new Set<string>();
  const seen = new Set<string>();
  setHandler(eventReceived, (event) => {
    if (event.id !== undefined) {
      if (seen.has(event.id)) return;
      seen.add(event.id);
    }
    names.add(event.name);
  });
  return {
    clear: () => names.clear(),
    async waitFor(eventName, timeoutMs) {
      const arrived = () => names.has(eventName);
      if (timeoutMs === undefined) {
        await condition(arrived);
        return true;
      }
      return timeoutMs > 0 ? await condition(arrived, timeoutMs) : arrived();
    },
  };
}

/** A step whose config cannot be run: the execution fails with this reason. */
function badConfig(step: GraphStep, problem: string): ApplicationFailure {
  return ApplicationFailure.create({ message: `Step "${step.name}" (${step.type}): ${problem}`, type: 'InvalidStepConfig', nonRetryable: true });
}

/** Runs one step of an execution and says where to go next. */
export async function runStep(activities: ExecutionActivities, step: GraphStep, execution: ExecutionRef, inbox: EventInbox): Promise<StepResult> {
  const { config } = step;
  const { sendWorkflowEmail, evaluateCondition, callWebhook, updateWorkflowContact } = activities;
  switch (step.type) {
    case 'SEND_EMAIL':
      await sendWorkflowEmail(execution, step.id, config as SendEmailConfig);
      return undefined;
    case 'DELAY': {
      const ms = durationMs(config);
      if (ms === undefined) throw badConfig(step, 'needs { amount, unit: seconds|minutes|hours|days|weeks }');
      if (ms > 0) await sleep(ms);
      return undefined;
    }
    case 'WAIT_FOR_EVENT': {
      const timeoutMs = config.timeout == null ? undefined : durationMs(config.timeout);
      if (typeof config.eventName !== 'string') throw badConfig(step, 'needs an eventName');
      if (config.timeout != null && timeoutMs === undefined) throw badConfig(step, 'timeout needs { amount, unit }');
      return (await inbox.waitFor(config.eventName, timeoutMs)) ? 'yes' : 'no';
    }
    case 'CONDITION': {
      const matches = await evaluateCondition(execution.projectId, execution.contactId, config.condition as Condition, execution.eventData);
      return matches ? 'yes' : 'no';
    }
    case 'WEBHOOK':
      await callWebhook(execution, step.id, config as unknown as WebhookConfig);
      return undefined;
    case 'UPDATE_CONTACT':
      await updateWorkflowContact(execution.projectId, execution.contactId, config as UpdateContactConfig);
      return undefined;
    case 'EXIT':
      return 'EXIT';
    default:
      throw badConfig(step, 'unknown step type');
  }
}
