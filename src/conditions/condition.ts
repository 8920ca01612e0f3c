import { isPlainObject } from '../contacts/data-rules';
import { validationError, type FieldError } from '../http/errors';

/** A condition tree: groups joined by `logic` (CONTRACT section 8). */
export interface Condition {
  logic: 'AND' | 'OR';
  groups: Group[];
}

/** A group matches when all its filters match and its nested condition (if any) matches. */
export interface Group {
  filters: Filter[];
  conditions?: Condition;
}

/** One comparison of a contact field, a `data.<key>` or an `event.<name>`. */
export interface Filter {
  field: string;
  operator: Operator;
  value?: unknown;
  unit?: Unit;
}

export const VALUE_OPERATORS = [
  'equals',
  'notEquals',
  'contains',
  'notContains',
  'startsWith',
  'endsWith',
  'greaterThan',
  'lessThan',
  'greaterThanOrEqual',
  'lessThanOrEqual',
  'in',
  'notIn',
  'exists',
  'notExists',
] as const;
export const DATE_OPERATORS = ['within', 'olderThan', 'before', 'after'] as const;
export const OPERATORS = [...VALUE_OPERATORS, ...DATE_OPERATORS] as const;
export type Operator = (typeof OPERATORS)[number];

export const UNITS = ['minutes', 'hours', 'days', 'weeks', 'months'] as const;
export type Unit = (typeof UNITS)[number];

/** The largest `within`/`olderThan` amount per unit: 200 years, which keeps `now() - amount` a valid timestamp. */
export const MAX_AMOUNT: Record<Unit, number> = { minutes: 105_192_000, hours: 1_753_200, days: 73_050, weeks: 10_435, months: 2_400 };

/** Operators allowed on `event.<name>` filters. */
export const EVENT_OPERATORS: readonly Operator[] = ['exists', 'notExists', 'within', 'olderThan', 'greaterThan', 'lessThan', 'equals'];
/** The built-in contact fields a filter may name. */
export const STANDARD_FIELDS = ['email', 'subscribed', 'createdAt', 'updatedAt'] as const;

const MAX_DEPTH = 5;
const MAX_FILTERS = 100;

/**
 * Validates a condition tree from a request, returning it typed; every problem is reported
 * as a 422 VALIDATION_ERROR whose `field` is the path inside the tree (`condition.groups[0].filters[1].operator`).
 */
export function parseCondition(input: unknown, path = 'condition'): Condition {
  const errors: FieldError[] = [];
  let filters = 0;
  const fail = (field: string, message: string, received?: unknown) =>
    errors.push({ field, message, code: 'invalid_condition', ...(typeof received === 'string' || typeof received === 'number' ? { received } : {}) });

  const condition = (value: unknown, at: string, depth: number): Condition => {
    if (!isPlainObject(value)) {
      fail(at, 'A condition is an object { logic, groups }');
      return { logic: 'AND', groups: [] };
    }
    const logic = value.logic === undefined ? 'AND' : value.logic;
    if (logic !== 'AND' && logic !== 'OR') fail(`${at}.logic`, 'logic is AND or OR', logic as string);
    if (depth > MAX_DEPTH) fail(at, `Conditions nest at most ${MAX_DEPTH} levels deep`);
    if (!Array.isArray(value.groups)) {
      fail(`${at}.groups`, 'groups must be an array');
      return { logic: logic as Condition['logic'], groups: [] };
    }
    return { logic: logic as Condition['logic'], groups: value.groups.map((g, i) => group(g, `${at}.groups[${i}]`, depth)) };
  };

  const group = (value: unknown, at: string, depth: number): Group => {
    if (!isPlainObject(value)) {
      fail(at, 'A group is an object { filters, conditions? }');
      return { filters: [] };
    }
    const rawFilters = value.filters === undefined ? [] : value.filters;
    if (!Array.isArray(rawFilters)) fail(`${at}.filters`, 'filters must be an array');
    const parsed: Group = { filters: Array.isArray(rawFilters) ? rawFilters.map((f, i) => filter(f, `${at}.filters[${i}]`)) : [] };
    if (value.conditions !== undefined && value.conditions !== null) parsed.conditions = condition(value.conditions, `${at}.conditions`, depth + 1);
    return parsed;
  };

  const filter = (value: unknown, at: string): Filter => {
    filters += 1;
    if (!isPlainObject(value)) {
      fail(at, 'A filter is an object { field, operator, value, unit? }');
      return { field: 'email', operator: 'exists' };
    }
    const { field, operator, unit } = value;
    if (typeof field !== 'string' || !isKnownField(field)) {
      fail(`${at}.field`, 'field is email, subscribed, createdAt, updatedAt, data.<key> or event.<name>', field as string);
    }
    if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator)) {
      fail(`${at}.operator`, `operator is one of ${OPERATORS.join(', ')}`, operator as string);
    } else if (typeof field === 'string' && field.startsWith('event.') && !EVENT_OPERATORS.includes(operator as Operator)) {
      fail(`${at}.operator`, `event filters take ${EVENT_OPERATORS.join(', ')}`, operator);
    } else {
      checkValue(operator as Operator, value.value, `${at}.value`, typeof field === 'string' && field.startsWith('event.'), unit);
    }
    if (unit !== undefined && !(UNITS as readonly string[]).includes(unit as string)) fail(`${at}.unit`, `unit is one of ${UNITS.join(', ')}`, unit as string);
    return { field: field as string, operator: operator as Operator, value: value.value, ...(unit ? { unit: unit as Unit } : {}) };
  };

  const checkValue = (operator: Operator, value: unknown, at: string, isEvent: boolean, unit: unknown) => {
    if (operator === 'exists' || operator === 'notExists') return;
    if (operator === 'within' || operator === 'olderThan') {
      const max = MAX_AMOUNT[(UNITS as readonly unknown[]).includes(unit) ? (unit as Unit) : 'days'];
      if (typeof value !== 'number' || !(value >= 0 && value <= max)) fail(at, `${operator} takes a number of units from 0 to ${max} (200 years)`, value as string);
    } else if (operator === 'before' || operator === 'after') {
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) fail(at, `${operator} takes an ISO 8601 date`, value as string);
    } else if (operator === 'in' || operator === 'notIn') {
      if (!Array.isArray(value) || value.length === 0 || value.some((item) => item === null || typeof item === 'object')) {
        fail(at, `${operator} takes a non-empty array of values`);
      }
    } else if (isEvent) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) fail(at, `${operator} on an event compares its count: a whole number`, value as string);
    } else if (value === undefined || value === null || typeof value === 'object') {
      fail(at, `${operator} takes a string, number or boolean`);
    }
  };

  const parsed = condition(input, path, 1);
  if (filters > MAX_FILTERS) fail(path, `A condition has at most ${MAX_FILTERS} filters`);
  if (errors.length > 0) throw validationError(errors, 'The condition is not valid');
  return parsed;
}

function isKnownField(field: string): boolean {
  if ((STANDARD_FIELDS as readonly string[]).includes(field)) return true;
  if (field.startsWith('data.')) return field.length > 'data.'.length;
  if (field.startsWith('event.data.')) return field.length > 'event.data.'.length;
  if (field.startsWith('event.')) return field.length > 'event.'.length;
  return false;
}

/** The `data.<key>` and `event.<name>` a condition references (for field and event usage). */
export function referencedFields(condition: Condition): string[] {
  const fields = new Set<string>();
  const walk = (c: Condition) =>
    c.groups.forEach((group) => {
      group.filters.forEach((filter) => fields.add(filter.field));
      if (group.conditions) walk(group.conditions);
    });
  walk(condition);
  return [...fields];
}
