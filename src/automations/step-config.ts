import { parseCondition } from '../conditions/condition';
import { isPlainObject } from '../contacts/data-rules';
import type { StepType } from '../entities/workflow';
import { validationError, type FieldError } from '../http/errors';
import { checkDto } from '../http/validate';
import {
  INLINE_EMAIL_FIELDS,
  InlineEmailStepConfig,
  StepDuration,
  TemplateEmailStepConfig,
  UpdateContactStepConfig,
  WaitForEventStepConfig,
  webhookHeaderProblems,
  WebhookStepConfig,
} from './step-config-dtos';

/** A step's config as stored: only the keys its type knows, each checked. */
export type StepConfig = Record<string, unknown>;

/** Only the keys that are set (a null text counts as not sent). */
const defined = (config: Record<string, unknown>): StepConfig =>
  Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined && value !== null));

/** The problems of a config and what is stored when it has none. */
type Checked = { errors: FieldError[]; config: StepConfig };

const duration = (value: object, field: string) => {
  const { value: checked, errors } = checkDto(StepDuration, value, field);
  return { errors, config: { amount: checked.amount, unit: checked.unit } };
};

function sendEmail(input: Record<string, unknown>): Checked {
  if (input.templateId !== undefined) {
    const inline = INLINE_EMAIL_FIELDS.filter((key) => input[key] !== undefined);
    const conflict = inline.length > 0
      ? [{ field: 'config', code: 'conflicting_fields', message: `Give either templateId or inline content, not both (also sent: ${inline.join(', ')})` }]
      : [];
    const { errors } = checkDto(TemplateEmailStepConfig, { templateId: input.templateId }, 'config');
    return { errors: [...conflict, ...errors], config: { templateId: input.templateId } };
  }
  const { value, errors } = checkDto(InlineEmailStepConfig, input, 'config');
  const { subject, body, from, fromName, replyTo, type } = value;
  return { errors, config: defined({ subject, body, from: trimmed(from), fromName, replyTo: trimmed(replyTo), type }) };
}

/** A text field trimmed; a value of another type (already reported as an error) as it came. */
const trimmed = <T>(value: T): T => (typeof value === 'string' ? (value.trim() as T) : value);

function waitForEvent(input: Record<string, unknown>): Checked {
  const { value, errors } = checkDto(WaitForEventStepConfig, input, 'config');
  const timeout = isPlainObject(value.timeout) ? duration(value.timeout, 'config.timeout') : undefined;
  return { errors: [...errors, ...(timeout?.errors ?? [])], config: defined({ eventName: value.eventName, timeout: timeout?.config }) };
}

function webhook(input: Record<string, unknown>): Checked {
  const { value, errors } = checkDto(WebhookStepConfig, input, 'config');
  const { url, method, headers, body } = value;
  return { errors: [...errors, ...webhookHeaderProblems(headers)], config: defined({ url, method: typeof method === 'string' ? method.toUpperCase() : method, headers, body }) };
}

function updateContact(input: Record<string, unknown>): Checked {
  const { value, errors } = checkDto(UpdateContactStepConfig, input, 'config');
  const { data, subscribed } = value;
  const neither = data === undefined && subscribed === undefined
    ? [{ field: 'config', code: 'required', message: 'An UPDATE_CONTACT step sets data, subscribed or both' }]
    : [];
  return { errors: [...neither, ...errors], config: defined({ data, subscribed }) };
}

/** Each step type's check, by the DTO of its config (src/automations/step-config-dtos.ts). */
const CHECKS: Record<Exclude<StepType, 'CONDITION'>, (input: Record<string, unknown>) => Checked> = {
  SEND_EMAIL: sendEmail,
  DELAY: (input) => duration(input, 'config'),
  WAIT_FOR_EVENT: waitForEvent,
  WEBHOOK: webhook,
  UPDATE_CONTACT: updateContact,
  EXIT: () => ({ errors: [], config: {} }),
};

/**
 * Validates the config of a step of `type` (CONTRACT section 10) and returns what is stored:
 * the keys the type knows, others dropped. Every problem is a 422 naming its path; a CONDITION
 * tree is checked by `parseCondition`. References to other records (template, sender domain)
 * are checked by the service.
 */
export function parseStepConfig(type: StepType, raw: unknown): StepConfig {
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) {
    throw validationError([{ field: 'config', code: 'invalid_type', message: 'config must be an object' }], 'The step config is not valid');
  }
  const input = raw ?? {};
  if (type === 'CONDITION') return { condition: parseCondition(input.condition, 'config.condition') };
  const { errors, config } = CHECKS[type](input);
  if (errors.length > 0) throw validationError(errors, `The ${type} step config is not valid`);
  return config;
}

/** The name a step gets when none is given. */
export const DEFAULT_STEP_NAMES: Record<StepType, string> = {
  SEND_EMAIL: 'Send email',
  DELAY: 'Delay',
  WAIT_FOR_EVENT: 'Wait for event',
  CONDITION: 'Condition',
  WEBHOOK: 'Webhook',
  UPDATE_CONTACT: 'Update contact',
  EXIT: 'Exit',
};
