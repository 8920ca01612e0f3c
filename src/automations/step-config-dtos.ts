import { IsBoolean, IsDefined, IsIn, IsNumber, IsObject, IsOptional, IsPositive, IsString, IsUUID, isEmail, MaxLength, ValidateBy } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DURATION_UNITS, type DurationUnit } from '../../workflows/shared';
import { ConditionTree } from '../conditions/condition-dto';
import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { Optional } from '../http/validate';
import { absent, described, emailAddress, ignoringCase, notBlank, object, orNull, schemaRef, singleLine } from '../openapi/builders';
import type { Schema } from '../openapi/types';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';

/**
 * The `config` of each step type (CONTRACT section 10), checked by src/automations/step-config.ts
 * with `checkDto`: each field reports its first failing check only, in the order listed, with the
 * codes the API has always given (`context.code`).
 */

/** The methods a WEBHOOK step may call with. */
export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The longest DELAY or timeout a step may ask for: ten years (in the units' seconds). */
export const MAX_DURATION = 10 * 366 * DURATION_UNITS.days;
const UNITS = Object.keys(DURATION_UNITS);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Validation options giving a check's error code (read by the API's validation errors). */
export const code = (value: string) => ({ context: { code: value } });

/** Applies property decorators so that checks run in the order listed (class-validator runs them as registered). */
const checks =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) => {
    for (const decorator of decorators) decorator(target, key);
  };

/** Documents a property with exactly this schema. */
export const documented = (schema: Schema) => JSONSchema((() => schema) as never) as PropertyDecorator;

/** A config text field: absent (null counts as absent) or `required`; then a non-empty string, at most `max`, on one line. */
function ConfigText(key: string, options: { required?: boolean; max?: number; singleLine?: boolean; description?: string } = {}): PropertyDecorator {
  const nonEmpty = `${key} must be a non-empty string`;
  let schema = notBlank({ type: 'string', ...(options.max ? { maxLength: options.max } : {}) });
  if (options.singleLine) schema = singleLine(schema);
  if (options.description) schema = described(schema, options.description);
  return checks(
    options.required ? IsDefined({ message: `${key} is required`, ...code('required') }) : IsOptional(),
    IsString({ message: nonEmpty, ...code('invalid_type') }),
    ValidateBy({ name: 'notBlank', validator: { validate: (value) => (value as string).trim() !== '' } }, { message: nonEmpty, ...code('invalid_type') }),
    ...(options.max !== undefined ? [MaxLength(options.max, { message: `${key} must be at most ${options.max} characters`, ...code('too_big') })] : []),
    ...(options.singleLine ? [ValidateBy({ name: 'singleLine', validator: { validate: (value) => !/[\r\n]/.test(value as string) } }, { message: `${key} must not contain line breaks`, ...code('invalid_config') })] : []),
    documented(options.required ? schema : orNull(schema)),
  );
}

/** A config address: a config text of at most 320 characters that is an email address once trimmed. */
function ConfigEmail(key: string, required: boolean, description?: string): PropertyDecorator {
  return checks(
    ConfigText(key, { required, max: 320 }),
    ValidateBy(
      { name: 'isEmail', validator: { validate: (value) => typeof value === 'string' && isEmail(value.trim()) } },
      { message: `${key} must be a valid email address`, ...code('invalid_string') },
    ),
    documented(required ? described(emailAddress, description ?? 'An email address.') : orNull(emailAddress)),
  );
}

/** The syntax error of a Liquid part, if any. */
function templateError(part: 'subject' | 'body', source: unknown): string | undefined {
  try {
    validateTemplate({ [part]: source as string });
    return undefined;
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error;
    return error.message;
  }
}

/** A part that parses as a Liquid template (checked at save time). */
const ParsesAsTemplate = (part: 'subject' | 'body') =>
  ValidateBy(
    {
      name: 'isTemplate',
      validator: { validate: (value) => templateError(part, value) === undefined, defaultMessage: (args) => templateError(part, args?.value) ?? '' },
    },
    code('invalid_template'),
  );

/** `DELAY`, and a WAIT_FOR_EVENT `timeout`: `{ amount, unit }`, more than 0 and at most ten years of `unit`. */
@JSONSchema({
  anyOf: Object.entries(DURATION_UNITS).map(([unit, seconds]) =>
    object({ amount: { type: 'number', exclusiveMinimum: 0, maximum: MAX_DURATION / seconds }, unit: { const: unit } }),
  ),
})
export class StepDuration {
  @checks(
    IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'amount must be a number greater than 0', ...code('too_small') }),
    IsPositive({ message: 'amount must be a number greater than 0', ...code('too_small') }),
    ValidateBy(
      {
        name: 'maxDuration',
        validator: {
          validate: (amount, args) => {
            const unit = (args?.object as { unit?: unknown }).unit;
            return typeof unit !== 'string' || !UNITS.includes(unit) || (amount as number) * DURATION_UNITS[unit as DurationUnit] <= MAX_DURATION;
          },
        },
      },
      { message: 'A duration is at most ten years', ...code('too_big') },
    ),
  )
  amount!: number;

  @IsIn(UNITS, { message: `unit is one of ${UNITS.join(', ')}` })
  unit!: DurationUnit;
}

/** The inline-content fields of a SEND_EMAIL step, which exclude `templateId`. */
export const INLINE_EMAIL_FIELDS = ['subject', 'body', 'from', 'fromName', 'replyTo', 'type'] as const;

/** `SEND_EMAIL` sending a template of the project; no inline content beside it. */
@JSONSchema({ properties: Object.fromEntries(INLINE_EMAIL_FIELDS.map((key) => [key, absent])) })
export class TemplateEmailStepConfig {
  @IsUUID('all', { message: 'templateId must be the id of a template', ...code('invalid_string') })
  @documented({ type: 'string', format: 'uuid' })
  templateId!: string;
}

/** `SEND_EMAIL` with inline content: Liquid subject and body, and a sender on a verified domain. */
@JSONSchema({ properties: { templateId: absent } })
export class InlineEmailStepConfig {
  @checks(ConfigText('subject', { required: true, max: 998, singleLine: true, description: 'Liquid, checked at save time.' }), ParsesAsTemplate('subject'))
  subject!: string;

  @checks(ConfigText('body', { required: true, description: 'Liquid, checked at save time.' }), ParsesAsTemplate('body'))
  body!: string;

  @ConfigEmail('from', true, 'On a verified domain of the project (else 403).')
  from!: string;

  @ConfigText('fromName', { max: 255, singleLine: true })
  fromName?: string;

  @ConfigEmail('replyTo', false)
  replyTo?: string;

  @Optional() @IsIn(EMAIL_TYPES, { message: `type is one of ${EMAIL_TYPES.join(', ')}`, ...code('invalid_enum_value') })
  @documented({ enum: [...EMAIL_TYPES] })
  type?: EmailType;
}

/** `WAIT_FOR_EVENT`: the event to wait for, and how long at most. */
export class WaitForEventStepConfig {
  @ConfigText('eventName', { required: true, max: 255 })
  eventName!: string;

  @IsOptional() @IsObject({ message: 'timeout is { amount, unit }', ...code('invalid_type') }) @documented(orNull(schemaRef('StepDuration')))
  timeout?: StepDuration;
}

/** `CONDITION`: a segment condition tree, checked by `parseCondition` (a recursive tree is no DTO). */
export class ConditionStepConfig {
  @ConditionTree({ description: '`event.data.<key>` reads the triggering event.' })
  condition!: unknown;
}

/** `WEBHOOK`: one HTTP call. `headers` names and values are checked by `webhookHeaderProblems`. */
export class WebhookStepConfig {
  @checks(
    ConfigText('url', { required: true, max: 2048 }),
    ValidateBy({ name: 'isUrl', validator: { validate: (url) => URL.canParse(url as string) } }, { message: 'url must be an absolute http or https URL', ...code('invalid_string') }),
    ValidateBy(
      { name: 'isHttpUrl', validator: { validate: (url) => ['http:', 'https:'].includes(new URL(url as string).protocol) } },
      { message: 'url must use http or https', ...code('invalid_string') },
    ),
    documented(
      described(
        { ...notBlank({ type: 'string', maxLength: 2048 }), pattern: '^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$' },
        'An absolute http or https URL.',
      ),
    ),
  )
  url!: string;

  @Optional()
  @ValidateBy(
    { name: 'isMethod', validator: { validate: (method) => typeof method === 'string' && (WEBHOOK_METHODS as readonly string[]).includes(method.toUpperCase()) } },
    { message: `method is one of ${WEBHOOK_METHODS.join(', ')}`, ...code('invalid_enum_value') },
  )
  @documented(described(singleLine({ type: 'string', pattern: `^(?:${WEBHOOK_METHODS.map(ignoringCase).join('|')})$` }), '`POST` by default, in any letter case.'))
  method?: string;

  @Optional() @IsObject({ message: 'headers must be an object of string values', ...code('invalid_type') })
  @documented({
    type: 'object',
    propertyNames: singleLine({ pattern: HEADER_NAME.source }),
    additionalProperties: singleLine({ type: 'string', maxLength: 998 }),
  })
  headers?: Record<string, string>;

  @checks(ConfigText('body', { description: 'A Liquid template; without it the default JSON payload is sent.' }), ParsesAsTemplate('body'))
  body?: string;
}

/** `UPDATE_CONTACT`: a `data` patch (the contact data rules), a subscription state, or both. */
@JSONSchema({ anyOf: [{ required: ['data'] }, { required: ['subscribed'] }] })
export class UpdateContactStepConfig {
  @Optional() @IsObject({ message: 'data must be an object', ...code('invalid_type') })
  data?: Record<string, unknown>;

  @Optional() @IsBoolean({ message: 'subscribed must be a boolean', ...code('invalid_type') })
  subscribed?: boolean;
}

/** Why a WEBHOOK step's headers cannot be sent: a name that is not a token, a value that is not one line of text. */
export function webhookHeaderProblems(headers: unknown): { field: string; message: string; code: string; received?: string }[] {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return [];
  return Object.entries(headers).flatMap(([name, value]) => [
    ...(HEADER_NAME.test(name) ? [] : [{ field: `config.headers.${name}`, message: 'A header name is a token without spaces or separators', code: 'invalid_string', received: name }]),
    ...(typeof value !== 'string' || /[\r\n]/.test(value) || value.length > 998
      ? [{ field: `config.headers.${name}`, message: 'A header value is a string of at most 998 characters without line breaks', code: 'invalid_type' }]
      : []),
  ]);
}

/** The config schema of each step type, for the document. */
export const STEP_CONFIG_SCHEMAS: Record<string, Schema> = {
  SEND_EMAIL: { anyOf: [schemaRef('TemplateEmailStepConfig'), schemaRef('InlineEmailStepConfig')] },
  DELAY: schemaRef('StepDuration'),
  WAIT_FOR_EVENT: schemaRef('WaitForEventStepConfig'),
  CONDITION: schemaRef('ConditionStepConfig'),
  WEBHOOK: schemaRef('WebhookStepConfig'),
  UPDATE_CONTACT: schemaRef('UpdateContactStepConfig'),
  EXIT: described(orNull(object({}, [])), 'Nothing to configure (keys sent are dropped).'),
};
