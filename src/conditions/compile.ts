import type { EntityManager } from 'typeorm';
import type { FieldType } from '../contacts/data-rules';
import { MAX_AMOUNT, type Condition, type Filter, type Group } from './condition';
import { escapeLike } from '../db/like';
import { listFieldTypes } from '../contacts/fields-queries';

/**
 * The one condition engine: compiles a validated condition tree to a parameterised SQL
 * boolean expression over `contacts c`. Keys, values, units and event names only ever
 * travel as bind parameters; operators and types come from fixed lists.
 */

/** What compiling needs: the statement's parameter list (appended to) and the project's field types. */
export interface CompileContext {
  params: unknown[];
  fieldTypes: Map<string, FieldType>;
  /** The triggering event's data, for `event.data.<key>` filters (workflow CONDITION steps). */
  eventData?: Record<string, unknown>;
}

type CompareType = 'string' | 'number' | 'boolean' | 'date';

const STANDARD: Record<string, { column: string; type: CompareType }> = {
  email: { column: 'c.email', type: 'string' },
  subscribed: { column: 'c.subscribed', type: 'boolean' },
  createdAt: { column: 'c.created_at', type: 'date' },
  updatedAt: { column: 'c.updated_at', type: 'date' },
};

const COMPARISON: Record<string, string> = {
  equals: '=',
  notEquals: '<>',
  greaterThan: '>',
  lessThan: '<',
  greaterThanOrEqual: '>=',
  lessThanOrEqual: '<=',
};

const CAST: Record<CompareType, string> = { string: 'text', number: 'numeric', boolean: 'boolean', date: 'timestamptz' };

/** The custom field types of a project, keyed by `data` key. */
export async function loadFieldTypes(manager: EntityManager, projectId: string): Promise<Map<string, FieldType>> {
  return new Map((await listFieldTypes(manager, projectId)).map((row) => [row.key, row.type]));
}

/** Compiles a condition to a SQL boolean expression; an empty `groups` matches every contact. */
export function compileCondition(condition: Condition, ctx: CompileContext): string {
  if (condition.groups.length === 0) return 'TRUE';
  return `(${condition.groups.map((group) => compileGroup(group, ctx)).join(condition.logic === 'OR' ? ' OR ' : ' AND ')})`;
}

function compileGroup(group: Group, ctx: CompileContext): string {
  const parts = group.filters.map((filter) => compileFilter(filter, ctx));
  if (group.conditions) parts.push(compileCondition(group.conditions, ctx));
  return parts.length === 0 ? 'TRUE' : `(${parts.join(' AND ')})`;
}

function param(ctx: CompileContext, value: unknown): string {
  ctx.params.push(value);
  return `$${ctx.params.length}`;
}

/** `now() - interval` stays a valid timestamp: the amount is held within MAX_AMOUNT (conditions saved before it was checked). */
function interval(ctx: CompileContext, filter: Filter): string {
  const unit = filter.unit ?? 'days';
  const amount = Math.min(Math.max(Number(filter.value) || 0, 0), MAX_AMOUNT[unit]);
  return `${param(ctx, `${amount} ${unit}`)}::interval`;
}

/**
 * A value as a SQL literal of `type`: a parameter when the value reads as that type, else a typed
 * NULL, which matches nothing. Field types are inferred from data and can change after a
 * condition was saved, so a value that does not fit must never make the query fail.
 */
function literal(ctx: CompileContext, type: CompareType, value: unknown): string {
  const fitting = asType(type, value);
  return fitting === undefined ? `NULL::${CAST[type]}` : `${param(ctx, fitting)}::${CAST[type]}`;
}

function asType(type: CompareType, value: unknown): string | undefined {
  const text = String(value);
  if (type === 'number') return text.trim() !== '' && Number.isFinite(Number(text)) ? String(Number(text)) : undefined;
  if (type === 'boolean') return ['true', 'false'].includes(text.toLowerCase()) ? text.toLowerCase() : undefined;
  if (type === 'date') {
    const time = Date.parse(text);
    return Number.isNaN(time) || Math.abs(time) > 8.64e15 ? undefined : new Date(time).toISOString();
  }
  return text;
}

/** A standard column read as `type`: itself when it has that type, else converted where it reads as one (NULL otherwise). */
function standardTyped(column: string, own: CompareType, type: CompareType): string {
  if (type === own) return column;
  if (type === 'date') return `herald_try_timestamptz(${column}::text)`;
  if (type === 'number') return `(CASE WHEN ${column}::text ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN ${column}::text::numeric END)`;
  if (type === 'boolean') return `(CASE WHEN lower(${column}::text) IN ('true', 'false') THEN ${column}::text::boolean END)`;
  return `${column}::text`;
}

function likePattern(filter: Filter): string {
  const text = escapeLike(String(filter.value).toLowerCase());
  if (filter.operator === 'startsWith') return `${text}%`;
  if (filter.operator === 'endsWith') return `%${text}`;
  return `%${text}%`;
}

function compileFilter(filter: Filter, ctx: CompileContext): string {
  if (filter.field.startsWith('event.data.')) return compileValue(filter, eventDataValue(filter, ctx), ctx);
  if (filter.field.startsWith('event.')) return compileEvent(filter, ctx);
  if (filter.field in STANDARD) {
    const standard = STANDARD[filter.field];
    if (filter.operator === 'exists') return 'TRUE';
    if (filter.operator === 'notExists') return 'FALSE';
    return compileValue(filter, {
      text: () => (standard.type === 'string' ? standard.column : `${standard.column}::text`),
      typed: (type) => standardTyped(standard.column, standard.type, type),
      type: standard.type,
      exists: () => 'TRUE',
    }, ctx);
  }
  return compileValue(filter, dataValue(filter, ctx), ctx);
}

/** How to read one value from a contact: as text, typed for a comparison, and whether it is there. */
interface ValueSource {
  text: () => string;
  typed: (type: CompareType) => string;
  type: CompareType;
  /** Builds the presence test (adding its parameters) when a filter needs it. */
  exists: () => string;
}

/** Reads a JSON document at a path; the path parameter is added only when a filter uses it. */
function jsonAt(ctx: CompileContext, base: string, path: string[]) {
  let ref: string | undefined;
  const at = () => (ref ??= `${param(ctx, path)}::text[]`);
  const json = () => `(${base} #> ${at()})`;
  const text = () => `(${base} #>> ${at()})`;
  const typed = (type: CompareType): string => {
    if (type === 'number') return `(CASE WHEN jsonb_typeof(${json()}) = 'number' THEN (${text()})::numeric END)`;
    if (type === 'boolean') return `(CASE WHEN jsonb_typeof(${json()}) = 'boolean' THEN (${text()})::boolean END)`;
    if (type === 'date') return `herald_try_timestamptz(${text()})`;
    return `(${text()})`;
  };
  return { json, text, typed };
}

/** The comparison type: the key's inferred type, or the value's own when the key is unknown or the value is numeric. */
function compareType(keyType: FieldType | undefined, filter: Filter): CompareType {
  if ((['within', 'olderThan', 'before', 'after'] as string[]).includes(filter.operator) || keyType === 'date') return 'date';
  if (keyType === 'number' || typeof filter.value === 'number' || (Array.isArray(filter.value) && typeof filter.value[0] === 'number')) return 'number';
  if (keyType === 'boolean' || typeof filter.value === 'boolean') return 'boolean';
  return 'string';
}

function dataValue(filter: Filter, ctx: CompileContext): ValueSource {
  const key = filter.field.slice('data.'.length);
  const path = ctx.fieldTypes.has(key) ? [key] : key.split('.');
  const { json, text, typed } = jsonAt(ctx, 'c.data', path);
  const exists = () => (path.length === 1 ? `(c.data ? ${param(ctx, path[0])}::text)` : `(${json()} IS NOT NULL)`);
  return { text, typed, type: compareType(ctx.fieldTypes.get(path.join('.')), filter), exists };
}

function eventDataValue(filter: Filter, ctx: CompileContext): ValueSource {
  const path = filter.field.slice('event.data.'.length).split('.');
  const { json, text, typed } = jsonAt(ctx, `${param(ctx, JSON.stringify(ctx.eventData ?? {}))}::jsonb`, path);
  const sample = path.reduce<unknown>((value, part) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined), ctx.eventData);
  const keyType: FieldType | undefined = typeof sample === 'number' ? 'number' : typeof sample === 'boolean' ? 'boolean' : undefined;
  return { text, typed, type: compareType(keyType, filter), exists: () => `(${json()} IS NOT NULL)` };
}

function compileValue(filter: Filter, source: ValueSource, ctx: CompileContext): string {
  const { operator } = filter;
  if (operator === 'exists') return source.exists();
  if (operator === 'notExists') return `(NOT ${source.exists()})`;
  if (operator === 'contains' || operator === 'startsWith' || operator === 'endsWith') {
    return `(lower(${source.text()}) LIKE ${param(ctx, likePattern(filter))}::text)`;
  }
  if (operator === 'notContains') return `(lower(${source.text()}) NOT LIKE ${param(ctx, likePattern(filter))}::text)`;
  if (operator === 'within') {
    const value = source.typed('date');
    return `(${value} >= now() - ${interval(ctx, filter)} AND ${value} <= now())`;
  }
  if (operator === 'olderThan') return `(${source.typed('date')} < now() - ${interval(ctx, filter)})`;
  if (operator === 'before' || operator === 'after') {
    return `(${source.typed('date')} ${operator === 'before' ? '<' : '>'} ${literal(ctx, 'date', filter.value)})`;
  }
  if (operator === 'in' || operator === 'notIn') {
    const values = filter.value as unknown[];
    const list = source.type === 'string'
      ? `${param(ctx, values.map((value) => String(value).toLowerCase()))}::text[]`
      : `${param(ctx, values.flatMap((value) => asType(source.type, value) ?? []))}::${CAST[source.type]}[]`;
    const left = source.type === 'string' ? `lower(${source.text()})` : source.typed(source.type);
    return operator === 'in' ? `(${left} = ANY(${list}))` : `(${left} <> ALL(${list}))`;
  }
  const sign = COMPARISON[operator];
  if (source.type === 'string') {
    const fold = operator === 'equals' || operator === 'notEquals';
    return fold ? `(lower(${source.text()}) ${sign} lower(${param(ctx, String(filter.value))}::text))` : `(${source.text()} ${sign} ${param(ctx, String(filter.value))}::text)`;
  }
  return `(${source.typed(source.type)} ${sign} ${literal(ctx, source.type, filter.value)})`;
}

function compileEvent(filter: Filter, ctx: CompileContext): string {
  const name = `${param(ctx, filter.field.slice('event.'.length))}::text`;
  const ofContact = `FROM events e WHERE e.contact_id = c.id AND e.name = ${name}`;
  switch (filter.operator) {
    case 'exists':
      return `EXISTS (SELECT 1 ${ofContact})`;
    case 'notExists':
      return `NOT EXISTS (SELECT 1 ${ofContact})`;
    case 'within':
      return `EXISTS (SELECT 1 ${ofContact} AND e.created_at >= now() - ${interval(ctx, filter)})`;
    case 'olderThan':
      return `((SELECT max(e.created_at) ${ofContact}) < now() - ${interval(ctx, filter)})`;
    default:
      return `((SELECT count(*) ${ofContact}) ${COMPARISON[filter.operator]} ${param(ctx, Math.min(Number(filter.value) || 0, Number.MAX_SAFE_INTEGER))}::bigint)`;
  }
}

/** The WHERE clause selecting a project's contacts that match a condition, with its parameters. */
export async function audienceWhere(
  manager: EntityManager,
  projectId: string,
  condition: Condition,
  extra: { eventData?: Record<string, unknown> } = {},
): Promise<{ where: string; params: unknown[] }> {
  const ctx: CompileContext = { params: [projectId], fieldTypes: await loadFieldTypes(manager, projectId), eventData: extra.eventData };
  const expression = compileCondition(condition, ctx);
  return { where: `c.project_id = $1 AND ${expression}`, params: ctx.params };
}
