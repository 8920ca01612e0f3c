import { isEmail } from 'class-validator';
import { DURATION_UNITS, type DurationUnit } from '../../workflows/graph';
import { parseCondition } from '../conditions/condition';
import { isPlainObject } from '../contacts/data-rules';
import { EMAIL_TYPES } from '../entities/template';
import type { StepType } from '../entities/workflow';
import { validationError, type FieldError } from '../http/errors';
import { isUuid } from '../http/validate';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';

export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The longest DELAY or timeout a step may ask for: ten years. */
const MAX_DURATION_MS = 10 * 366 * DURATION_UNITS.days;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LINE_BREAK = /[\r\n]/;
/** The inline-content fields of a SEND_EMAIL step, which exclude `templateId`. */
const INLINE_EMAIL_FIELDS = ['subject', 'body', 'from', 'fromName', 'replyTo', 'type'] as const;

/** A step's config as stored: only the keys its type knows, each checked. */
export type StepConfig = Record<string, unknown>;

/** The problems found in one config, each with its path (`config.timeout.unit`). */
class Problems {
  readonly errors: FieldError[] = [];

  fail(field: string, message: string, code = 'invalid_config', received?: unknown): void {
    const shown = typeof received === 'string' || typeof received === 'number' ? { received } : {};
    this.errors.push({ field, message, code, ...shown });
  }

  /** A string field: absent is undefined (or a `required` problem); otherwise 1..max characters. */
  text(input: Record<string, unknown>, key: string, options: { required?: boolean; max?: number; singleLine?: boolean } = {}): string | undefined {
    const value = input[key];
    const field = `config.${key}`;
    if (value === undefined || value === null) {
      if (options.required) this.fail(field, `${key} is required`, 'required');
      return undefined;
    }
    if (typeof value !== 'string' || value.trim() === '') this.fail(field, `${key} must be a non-empty string`, 'invalid_type', value as string);
    else if (options.max !== undefined && value.length > options.max) this.fail(field, `${key} must be at most ${options.max} characters`, 'too_big');
    else if (options.singleLine && LINE_BREAK.test(value)) this.fail(field, `${key} must not contain line breaks`);
    else return value;
    return undefined;
  }

  email(input: Record<string, unknown>, key: string, required: boolean): string | undefined {
    const value = this.text(input, key, { required, max: 320 });
    if (value !== undefined && !isEmail(value.trim())) this.fail(`config.${key}`, `${key} must be a valid email address`, 'invalid_string', value);
    return value?.trim();
  }

  /** A `{ amount, unit }` duration at `field`. */
  duration(value: unknown, field: string): { amount: number; unit: DurationUnit } | undefined {
    if (!isPlainObject(value)) {
      this.fail(field, `${field.replace(/^config\.?/, '') || 'config'} is { amount, unit }`, 'invalid_type');
      return undefined;
    }
    const { amount, unit } = value;
    const units = Object.keys(DURATION_UNITS);
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) this.fail(`${field}.amount`, 'amount must be a number greater than 0', 'too_small', amount as number);
    if (typeof unit !== 'string' || !units.includes(unit)) this.fail(`${field}.unit`, `unit is one of ${units.join(', ')}`, 'invalid_enum_value', unit as string);
    else if (typeof amount === 'number' && amount * DURATION_UNITS[unit as DurationUnit] > MAX_DURATION_MS) this.fail(`${field}.amount`, 'A duration is at most ten years', 'too_big', amount);
    return { amount: amount as number, unit: unit as DurationUnit };
  }

  /** Whether the part parses as a template, reported at `field` otherwise. */
  template(part: 'subject' | 'body', source: string | undefined, field: string): void {
    if (source === undefined) return;
    try {
      validateTemplate({ [part]: source });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      this.fail(field, error.message, 'invalid_template');
    }
  }
}

/** Only the keys that are set. */
const defined = (config: Record<string, unknown>): StepConfig =>
  Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));

function sendEmail(input: Record<string, unknown>, p: Problems): StepConfig {
  if (input.templateId !== undefined) {
    const inline = INLINE_EMAIL_FIELDS.filter((key) => input[key] !== undefined);
    if (inline.length > 0) p.fail('config', `Give either templateId or inline content, not both (also sent: ${inline.join(', ')})`, 'conflicting_fields');
    if (typeof input.templateId !== 'string' || !isUuid(input.templateId)) p.fail('config.templateId', 'templateId must be the id of a template', 'invalid_string');
    return { templateId: input.templateId };
  }
  const subject = p.text(input, 'subject', { required: true, max: 998, singleLine: true });
  const body = p.text(input, 'body', { required: true });
  p.template('subject', subject, 'config.subject');
  p.template('body', body, 'config.body');
  const type = input.type;
  if (type !== undefined && !(EMAIL_TYPES as readonly unknown[]).includes(type)) {
    p.fail('config.type', `type is one of ${EMAIL_TYPES.join(', ')}`, 'invalid_enum_value', type as string);
  }
  return defined({
    subject,
    body,
    from: p.email(input, 'from', true),
    fromName: p.text(input, 'fromName', { max: 255, singleLine: true }),
    replyTo: p.email(input, 'replyTo', false),
    type,
  });
}

function waitForEvent(input: Record<string, unknown>, p: Problems): StepConfig {
  const eventName = p.text(input, 'eventName', { required: true, max: 255 });
  return defined({ eventName, timeout: input.timeout === undefined || input.timeout === null ? undefined : p.duration(input.timeout, 'config.timeout') });
}

function webhook(input: Record<string, unknown>, p: Problems): StepConfig {
  const url = p.text(input, 'url', { required: true, max: 2048 });
  if (url !== undefined && !URL.canParse(url)) p.fail('config.url', 'url must be an absolute http or https URL', 'invalid_string', url);
  else if (url !== undefined && !['http:', 'https:'].includes(new URL(url).protocol)) p.fail('config.url', 'url must use http or https', 'invalid_string', url);
  let method: string | undefined;
  if (input.method !== undefined) {
    method = typeof input.method === 'string' ? input.method.toUpperCase() : undefined;
    if (!method || !(WEBHOOK_METHODS as readonly string[]).includes(method)) {
      p.fail('config.method', `method is one of ${WEBHOOK_METHODS.join(', ')}`, 'invalid_enum_value', input.method as string);
    }
  }
  const headers = input.headers;
  if (headers !== undefined && !isPlainObject(headers)) p.fail('config.headers', 'headers must be an object of string values', 'invalid_type');
  for (const [name, value] of Object.entries(isPlainObject(headers) ? headers : {})) {
    if (!HEADER_NAME.test(name)) p.fail(`config.headers.${name}`, 'A header name is a token without spaces or separators', 'invalid_string', name);
    if (typeof value !== 'string' || LINE_BREAK.test(value) || value.length > 998) {
      p.fail(`config.headers.${name}`, 'A header value is a string of at most 998 characters without line breaks', 'invalid_type');
    }
  }
  const body = p.text(input, 'body');
  p.template('body', body, 'config.body');
  return defined({ url, method, headers, body });
}

function updateContact(input: Record<string, unknown>, p: Problems): StepConfig {
  const { data, subscribed } = input;
  if (data === undefined && subscribed === undefined) p.fail('config', 'An UPDATE_CONTACT step sets data, subscribed or both', 'required');
  if (data !== undefined && !isPlainObject(data)) p.fail('config.data', 'data must be an object', 'invalid_type');
  if (subscribed !== undefined && typeof subscribed !== 'boolean') p.fail('config.subscribed', 'subscribed must be a boolean', 'invalid_type');
  return defined({ data, subscribed });
}

const PARSERS: Record<StepType, (input: Record<string, unknown>, p: Problems) => StepConfig> = {
  SEND_EMAIL: sendEmail,
  DELAY: (input, p) => p.duration(input, 'config') ?? {},
  WAIT_FOR_EVENT: waitForEvent,
  CONDITION: (input) => ({ condition: parseCondition(input.condition, 'config.condition') }),
  WEBHOOK: webhook,
  UPDATE_CONTACT: updateContact,
  EXIT: () => ({}),
};

/**
 * Validates the config of a step of `type` (CONTRACT section 10) and returns what is stored:
 * the keys the type knows, others dropped. Every problem is a 422 naming its path.
 * References to other records (template, sender domain) are checked by the service.
 */
export function parseStepConfig(type: StepType, raw: unknown): StepConfig {
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) {
    throw validationError([{ field: 'config', code: 'invalid_type', message: 'config must be an object' }], 'The step config is not valid');
  }
  const problems = new Problems();
  const config = PARSERS[type](raw ?? {}, problems);
  if (problems.errors.length > 0) throw validationError(problems.errors, `The ${type} step config is not valid`);
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
