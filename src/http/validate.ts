import { ValidateIf, validateSync, type ValidationError } from 'class-validator';
import { validationError, type FieldError } from './errors';

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
      code: codes[name] ?? 'invalid',
      ...(error.value !== undefined && typeof error.value !== 'object' ? { received: error.value } : {}),
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

/**
 * Validates a JSON body against a class-validator DTO and returns the typed value;
 * throws a 422 VALIDATION_ERROR listing every failing field.
 */
export function parseBody<T extends object>(Dto: new () => T, body: unknown): T {
  const source = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  const instance = Object.assign(new Dto(), source);
  const errors = validateSync(instance, { forbidUnknownValues: true, validationError: { target: false } });
  if (errors.length > 0) throw validationError(flatten(errors));
  return instance;
}

/**
 * Validates a field only when it is present: unlike class-validator's IsOptional, `null` is
 * checked like any other value (so a string field refuses it with 422). Fields that take
 * `null` say so with IsOptional and a `| null` type.
 */
export const Optional = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path parameter is a UUID (anything else cannot name a stored row). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
