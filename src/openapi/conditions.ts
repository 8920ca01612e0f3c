import { dateTime, described, orNull, schemaRef } from './builders';
import type { Schema } from './types';

/** How a condition tree is evaluated (CONTRACT section 8), as Markdown. */
export const CONDITION_RULES = [
  'A condition is `{ logic, groups }`. A group matches when all its `filters` match **and** its nested `conditions` ' +
    '(if any) match; `logic` (`AND` or `OR`, default `AND`) joins the groups of one level. An empty `groups` array ' +
    'matches every contact.',
  '',
  '- Fields: `email`, `subscribed`, `createdAt`, `updatedAt`, `data.<key>` (nested: `data.a.b`) and `event.<name>` ' +
    '(an event of that name on the contact).',
  '- Operators: `equals`, `notEquals`, `contains`, `notContains`, `startsWith`, `endsWith`, `greaterThan`, ' +
    '`lessThan`, `greaterThanOrEqual`, `lessThanOrEqual`, `in`, `notIn` (array value), `exists`, `notExists`; for ' +
    'dates `within` and `olderThan` (a number of `unit`s: `minutes`, `hours`, `days` (default), `weeks`, `months`), ' +
    '`before`, `after` (ISO 8601 value).',
  '- `event.<name>` takes `exists`, `notExists`, `within`/`olderThan` (its last occurrence) and ' +
    '`greaterThan`/`lessThan`/`equals` (how many times, a whole number).',
  "- Comparisons use the key's inferred type. String `equals`, `contains`, `in` are case-insensitive. A filter on a " +
    'key no contact has matches nobody (`notExists` matches everyone).',
  '- An unknown operator, field shape or unit answers 422 `VALIDATION_ERROR`, each `field` being the path in the tree ' +
    '(`condition.groups[0].filters[1].operator`). At most 5 levels and 100 filters.',
].join('\n');

/** The levels a condition may nest (src/conditions/condition.ts). */
const MAX_DEPTH = 5;

const COMPARISONS = ['equals', 'notEquals', 'contains', 'notContains', 'startsWith', 'endsWith', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'];
const OPERATORS = [...COMPARISONS, 'in', 'notIn', 'exists', 'notExists', 'within', 'olderThan', 'before', 'after'];
const scalar: Schema = { type: ['string', 'number', 'boolean'] };

/** `email`, `subscribed`, `createdAt`, `updatedAt` or `data.<key>`. */
const contactField: Schema = { anyOf: [{ enum: ['email', 'subscribed', 'createdAt', 'updatedAt'] }, { type: 'string', pattern: '^data\\.[\\s\\S]' }] };
/** `event.<name>` or `event.data.<key>` (the triggering event, in a workflow). */
const eventField: Schema = { type: 'string', pattern: '^event\\.[\\s\\S]', not: { const: 'event.data.' } };

/** A filter whose `operator` is one of `operators`, on `field`, with `value` (required unless undefined). */
const rule = (operators: string[], field: Schema | undefined, value: Schema | undefined): Schema => ({
  properties: { operator: { enum: operators }, ...(field ? { field } : {}), ...(value ? { value } : {}) },
  ...(value ? { required: ['value'] } : {}),
});

/** One comparison; which `value` it takes depends on its operator and field. */
const conditionFilter: Schema = {
  type: 'object',
  properties: {
    field: described({ anyOf: [contactField, eventField] }, '`email`, `subscribed`, `createdAt`, `updatedAt`, `data.<key>` or `event.<name>`.'),
    operator: { enum: OPERATORS },
    value: { description: 'A string, number or boolean; an array for `in`/`notIn`; absent for `exists`/`notExists`.' },
    unit: { type: 'string', enum: ['minutes', 'hours', 'days', 'weeks', 'months'] },
  },
  required: ['field', 'operator'],
  anyOf: [
    rule(['exists', 'notExists'], undefined, undefined),
    rule(['within', 'olderThan'], undefined, { type: 'number', minimum: 0 }),
    rule(['before', 'after'], contactField, dateTime),
    rule(['in', 'notIn'], contactField, { type: 'array', minItems: 1, items: scalar }),
    rule(['equals', 'greaterThan', 'lessThan'], eventField, { type: 'integer', minimum: 0 }),
    rule(COMPARISONS, contactField, scalar),
  ],
};

/** A condition at nesting `level` (1 is the top): its groups nest one level deeper, at most MAX_DEPTH. */
function condition(level: number): Schema {
  const group: Schema = {
    type: 'object',
    properties: {
      filters: { type: 'array', items: schemaRef('ConditionFilter') },
      conditions: level < MAX_DEPTH ? orNull(condition(level + 1)) : { type: 'null' },
    },
  };
  return {
    type: 'object',
    properties: { logic: { enum: ['AND', 'OR'], default: 'AND' }, groups: { type: 'array', items: group } },
    required: ['groups'],
  };
}

/** The condition schemas of the document, for segments, campaign audiences and CONDITION steps. */
export const conditionSchemas = (example: unknown): Record<string, Schema> => ({
  ConditionFilter: conditionFilter,
  Condition: { ...condition(1), description: CONDITION_RULES, example },
});
