import { badRequest } from './errors';
import { isUuid } from './validate';

/** A parsed query string (or a query DTO read from one); `plainQuery` has made sure that every value is one string. */
export type Query = object;

const valueOf = (query: Query, name: string): unknown => (query as Record<string, unknown>)[name];

/** Where an integer parameter may lie; with `clamp`, values outside are taken as the nearest bound. */
export interface IntRange {
  fallback: number;
  min: number;
  max: number;
  clamp?: boolean;
}

/** Whole numbers of at most 15 digits: anything longer is no count or page anyone means. */
const INTEGER = /^-?\d{1,15}$/;

/** An integer query parameter: `fallback` when absent or empty; anything but a whole number in range is a 400. */
export function intParam(query: Query, name: string, range: IntRange): number {
  const raw = valueOf(query, name);
  if (raw === undefined || raw === '') return range.fallback;
  const value = typeof raw === 'string' && INTEGER.test(raw) ? Number(raw) : undefined;
  if (value !== undefined && (range.clamp || (value >= range.min && value <= range.max))) {
    return Math.min(Math.max(value, range.min), range.max);
  }
  const expected = range.clamp ? 'a whole number' : `a whole number from ${range.min} to ${range.max}`;
  throw badRequest(`${name} must be ${expected}`, { details: { [name]: raw } });
}

/** A query parameter that must be one of `allowed`: `fallback` when absent, a 400 when anything else. */
export function choiceParam<T extends string>(query: Query, name: string, allowed: readonly T[], fallback?: T): T | undefined {
  const raw = valueOf(query, name);
  if (raw === undefined || raw === '') return fallback;
  const value = allowed.find((candidate) => candidate === raw);
  if (value === undefined) throw badRequest(`${name} must be one of ${allowed.join(', ')}`, { details: { [name]: raw } });
  return value;
}

/** A query parameter that must be a UUID when given. */
export function uuidParam(query: Query, name: string): string | undefined {
  const raw = valueOf(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !isUuid(raw)) throw badRequest(`${name} must be a UUID`, { details: { [name]: raw } });
  return raw;
}

/** A text query parameter, trimmed; '' when absent. */
export function textParam(query: Query, name: string): string {
  const raw = valueOf(query, name);
  return typeof raw === 'string' ? raw.trim() : '';
}
