/** Keys that are silently dropped from any `data` payload. */
export const RESERVED_DATA_KEYS: ReadonlySet<string> = new Set([
  'id',
  'herald_id',
  'herald_email',
  'email',
  'unsubscribeUrl',
  'subscribeUrl',
  'manageUrl',
]);

/** The inferred type of a custom field, sticky per project once first seen. */
export type FieldType = 'string' | 'number' | 'boolean' | 'date' | 'object';

/** What one `data` payload does to a contact and to the request it came with. */
export interface DataPatch {
  /** Keys stored on the contact (patch semantics: other keys keep their values). */
  set: Record<string, unknown>;
  /** Keys deleted from the contact (sent as `null`). */
  unset: string[];
  /** `{ value, persistent: false }` values: used for this request only, never stored. */
  transient: Record<string, unknown>;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** Whether a value is a plain JSON object (not null, not an array). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isValueWrapper(value: Record<string, unknown>): boolean {
  return 'value' in value && 'persistent' in value && typeof value.persistent === 'boolean';
}

/** Applies the SPEC's `data` rules to a payload: reserved keys, null, empty string and `{ value, persistent }`. */
export function parseDataPatch(data: Record<string, unknown> | undefined): DataPatch {
  const patch: DataPatch = { set: {}, unset: [], transient: {} };
  for (const [key, raw] of Object.entries(data ?? {})) {
    if (RESERVED_DATA_KEYS.has(key) || key === '') continue;
    if (raw === null) {
      patch.unset.push(key);
    } else if (raw === '' || raw === undefined) {
      continue;
    } else if (isPlainObject(raw) && isValueWrapper(raw)) {
      if (raw.persistent === false) patch.transient[key] = raw.value;
      else if (raw.value === null) patch.unset.push(key);
      else if (raw.value !== '') patch.set[key] = raw.value;
    } else {
      patch.set[key] = raw;
    }
  }
  return patch;
}

/** Infers a field's type from the first non-null value seen for it. */
export function inferType(value: unknown): FieldType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string' && (DATE_ONLY.test(value) || ISO_UTC.test(value)) && !Number.isNaN(Date.parse(value))) {
    return 'date';
  }
  if (typeof value === 'object' && value !== null) return 'object';
  return 'string';
}

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const LEADING_ZERO = /^-?0\d/;

/**
 * Reads a CSV cell as JSON would type it: numbers, booleans, else text (dates stay
 * text, typed `date`). Digits with a leading zero (postal codes, phone numbers) stay text.
 */
export function csvCellValue(cell: string): unknown {
  const text = cell.trim();
  if (NUMBER.test(text) && !LEADING_ZERO.test(text) && Number.isFinite(Number(text))) return Number(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  return text;
}
