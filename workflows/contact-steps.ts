import { ApplicationFailure, condition, proxyActivities, setHandler, sleep } from '@temporalio/workflow';
import type { createWorkflowStepActivities } from '../activities/workflow-steps';
import type { Condition } from '../src/conditions/condition';
import type { Branch } from '../src/entities/workflow';
import type { UpdateContactConfig } from '../src/automations/contact-steps';
import type { SendEmailConfig } from '../src/automations/email-step';
import type { WebhookConfig } from '../src/automations/webhook-step';
import { durationMs } from './graph';
import { eventReceived, type ExecutionRef, type GraphStep } from './shared';

type StepActivities = ReturnType<typeof createWorkflowStepActivities>;

/** Writes to the execution record: short, retried for as long as the database is away. */
export const { recordExecutionStep, finishExecution } = proxyActivities<StepActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Throttling and transient transport failures back off up to 5 minutes apart, for about an hour (as `email/<id>` does). */
const { sendWorkflowEmail } = proxyActivities<StepActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 16 },
});

/** A call times out after 10 s (in the activity); five attempts, 5 s to a minute apart. */
const { callWebhook } = proxyActivities<StepActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** One query or one contact write each. */
const { evaluateCondition, updateWorkflowContact } = proxyActivities<StepActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 10 },
});

/** How a step ended: the branch it chose (CONDITION, WAIT_FOR_EVENT), EXIT, or undefined to go on along the plain transition. */
export type StepResult = Branch | 'EXIT' | undefined;

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
export async function runStep(step: GraphStep, execution: ExecutionRef, inbox: EventInbox): Promise<StepResult> {
  const { config } = step;
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
