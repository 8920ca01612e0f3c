import { IsISO8601, IsOptional, Matches, ValidateIf, validateSync, type ValidationError } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { badRequest, BareError, notFound, validationError, type FieldError } from './errors';

const codes: Record<string, string> = {
  isEmail: 'invalid_string',
  isString: 'invalid_type',
  isBoolean: 'invalid_type',
  isInt: 'invalid_type',
  isObject: 'invalid_type',
  isUuid: 'invalid_string',
  isNotEmpty: 'required',
  isDefined: 'required',
  minLength: 'too_small',
  maxLength: 'too_big',
  min: 'too_small',
  max: 'too_big',
  isIn: 'invalid_enum_value',
  whitelistValidation: 'unrecognized_key',
};

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([name, message]) => ({
      field,
      message,
      code: (error.contexts?.[name] as { code?: string } | undefined)?.code ?? codes[name] ?? 'invalid',
      ...(error.value !== undefined && typeof error.value !== 'object' ? { received: error.value } : {}),
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * An endpoint's body once validated: what its quick check answers when it vouches for the body
 * (the hot endpoints'), else what its DTO makes of it (parseBody).
 */
export function endpointBody(route: { body: new () => object; quickBody?: (body: unknown) => unknown }, body: unknown): unknown {
  return route.quickBody?.(body) ?? parseBody(route.body, body);
}

/**
 * Validates a JSON body against a class-validator DTO and returns the typed value, holding only
 * the properties the DTO declares (anything else in the body is dropped, so no unknown field
 * can reach an entity); throws a 422 VALIDATION_ERROR listing every failing field.
 */
export function parseBody<T extends object>(Dto: new () => T, body: unknown): T {
  const source = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const instance = Object.assign(new Dto(), source);
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: true, validationError: { target: false } });
  if (errors.length > 0) throw validationError(flatten(errors));
  return instance;
}

/**
 * Validates a field only when it is present: unlike class-validator's IsOptional, `null` is
 * checked like any other value (so a string field refuses it with 422). Fields that take
 * `null` say so with IsOptional and a `| null` type.
 */
export const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** A field that may be left out or sent as `null` (which clears it); documented as the schema or null, with its description. */
export function Nullable(description?: string): PropertyDecorator {
  const orNull = JSONSchema(((schema: object) => ({ anyOf: [schema, { type: 'null' }], ...(description ? { description } : {}) })) as never) as PropertyDecorator;
  return (target, key) => {
    IsOptional()(target, key as string);
    orNull(target, key);
  };
}

/**
 * Validates a query string against a class-validator DTO (every value is one string, as
 * `plainQuery` leaves it); the first failing parameter is a 400 naming it.
 */
export function parseQuery<T extends object>(Dto: new () => T, query: unknown): T {
  const instance = Object.assign(new Dto(), query && typeof query === 'object' ? query : {});
  const errors = validateSync(instance, { forbidUnknownValues: true, validationError: { target: false } });
  const first = flatten(errors)[0];
  if (first) throw badRequest(first.message, { details: { [first.field]: first.received ?? (instance as Record<string, unknown>)[first.field] } });
  return instance;
}

/**
 * Checks a value against a DTO, stopping at each field's first failing check (class-validator
 * runs a property's decorators from the last written to the first); the problems are named under `parent`.
 */
export function checkDto<T extends object>(Dto: new () => T, value: object, parent: string): { value: T; errors: FieldError[] } {
  const instance = Object.assign(new Dto(), value);
  const errors = validateSync(instance, { forbidUnknownValues: true, stopAtFirstError: true, validationError: { target: false } });
  return { value: instance, errors: flatten(errors, parent) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path parameter is a UUID (anything else cannot name a stored row). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * A precheck for the SPEC's bare `{ error }` answers: each of `fields` must be a string holding
 * something besides white space (`<field> is required`); with `partial` (PATCH), a field left out passes.
 */
export const requireText = (fields: readonly string[], partial: boolean) => (body: unknown): void => {
  const input = (body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  for (const field of fields) {
    if (partial && input[field] === undefined) continue;
    const value = input[field];
    if (typeof value !== 'string' || value.trim() === '') throw new BareError(`${field} is required`);
  }
};

/** A path id of a stored row: one that is not a UUID names nothing, a 404 for `what` ('Template', 'Contact'). */
export function uuidPathId(id: string, what: string): string {
  if (!isUuid(id)) throw notFound(what);
  return id;
}

/**
 * The characters JavaScript's `trim()` and `\s` take for white space, written as a character class body
 * that reads the same in every regex dialect (Python's `\s` differs).
 */
export const SPACE = '\\t-\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';

/** A string holding something besides white space, what `value.trim() !== ''` accepts. */
export const NotBlank = (message = '$property must not be empty') => Matches(new RegExp(`[^${SPACE}]`), { message });

/** A string without CR or LF. */
export const SingleLine = (field: string) => Matches(/^[^\r\n]*$/, { message: `${field} must not contain line breaks` });

/** An ISO 8601 date-time (answers carry them as `Date`s serialised by JSON). */
export function IsDateTime(): PropertyDecorator {
  const documented = JSONSchema((() => ({ type: 'string', format: 'date-time' })) as never) as PropertyDecorator;
  return (target, key) => {
    IsISO8601({ strict: true })(target, key as string);
    documented(target, key);
  };
}

/** An ISO 8601 date-time or `null` (Nullable would document IsDateTime's schema away: a property keeps one JSONSchema). */
export function NullableDateTime(description?: string): PropertyDecorator {
  const documented = JSONSchema(
    (() => ({ anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }], ...(description ? { description } : {}) })) as never,
  ) as PropertyDecorator;
  return (target, key) => {
    IsOptional()(target, key as string);
    IsISO8601({ strict: true })(target, key as string);
    documented(target, key);
  };
}
