import { absent, described, emailAddress, ignoringCase, notBlank, object, orNull, schemaRef, singleLine, uuid } from './builders';
import type { Schema } from './types';

export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'];

/** The step configs by type, as Markdown. */
export const STEP_CONFIGS = [
  'Step `config` by `type` (unknown keys are dropped; a bad config answers 422 naming `config.<key>`):',
  '',
  '- `SEND_EMAIL`: `{ templateId }` (a template of the project), or inline `{ subject, body, from, fromName?, replyTo?, type? }` ' +
    '(Liquid checked at save time; `from` on a verified domain, else 403; `type` `MARKETING` by default). A MARKETING email ' +
    'is skipped for unsubscribed contacts, and the skip is recorded in the execution `context.skipped`.',
  '- `DELAY`: `{ amount, unit }`, `amount` greater than 0, `unit` one of `seconds`, `minutes`, `hours`, `days`, `weeks`; at most ten years.',
  '- `WAIT_FOR_EVENT`: `{ eventName, timeout?: { amount, unit } }`. Its transitions: `yes` (the event arrived), `no` ' +
    '(timed out) and one unlabelled transition, taken when the outcome has no transition of its own; each optional.',
  '- `CONDITION`: `{ condition }`, a segment condition tree; `event.data.<key>` reads the triggering event. Needs a `yes` ' +
    'and a `no` transition.',
  '- `WEBHOOK`: `{ url (http or https), method? (POST default; GET, POST, PUT, PATCH, DELETE), headers? (string values), body? }`. ' +
    'Without `body` it sends `{ event, contact, workflow, execution }` as JSON; a `body` is rendered as a template. ' +
    'Requests time out after 10 s and are retried; private and loopback addresses (also wrapped in an IPv6 address: IPv4-mapped or ' +
    '-compatible, NAT64, 6to4, Teredo) are refused unless `WEBHOOK_ALLOW_PRIVATE=true`.',
  '- `UPDATE_CONTACT`: `{ data?, subscribed? }`, at least one; `data` follows the contact data rules.',
  '- `EXIT`: `{}`; ends the execution as `EXITED`.',
].join('\n');

/** Seconds per duration unit, and the longest duration (ten years), as workflows/graph.ts and step-config.ts count them. */
const UNIT_SECONDS = { seconds: 1, minutes: 60, hours: 3600, days: 86_400, weeks: 604_800 };
const MAX_SECONDS = 10 * 366 * UNIT_SECONDS.days;

/** `{ amount, unit }`: more than 0 and at most ten years of `unit`. */
const duration: Schema = {
  anyOf: Object.entries(UNIT_SECONDS).map(([unit, seconds]) =>
    object({ amount: { type: 'number', exclusiveMinimum: 0, maximum: MAX_SECONDS / seconds }, unit: { const: unit } }),
  ),
};

/** A config text field: a string with something besides white space (null counts as not sent). */
const text = (maxLength?: number): Schema => notBlank({ type: 'string', ...(maxLength ? { maxLength } : {}) });
const INLINE_EMAIL = {
  subject: described(singleLine(text(998)), 'Liquid, checked at save time.'),
  body: described(text(), 'Liquid, checked at save time.'),
  from: described(emailAddress, 'On a verified domain of the project (else 403).'),
  fromName: orNull(singleLine(text(255))),
  replyTo: orNull(emailAddress),
  type: { enum: ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] },
};

const sendEmail: Schema = {
  anyOf: [
    object({ templateId: uuid, ...Object.fromEntries(Object.keys(INLINE_EMAIL).map((key) => [key, absent])) }, ['templateId']),
    object({ templateId: absent, ...INLINE_EMAIL }, ['subject', 'body', 'from']),
  ],
};

/** A header name token, and a value without line breaks. */
const webhookHeaders: Schema = {
  type: 'object',
  propertyNames: singleLine({ pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }),
  additionalProperties: singleLine({ type: 'string', maxLength: 998 }),
};

const webhook: Schema = object(
  {
    url: described(
      { ...text(2048), pattern: '^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]{1,4})?(?:[/?#][!-~]*)?$' },
      'An absolute http or https URL.',
    ),
    method: singleLine({ type: 'string', pattern: `^(?:${['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map(ignoringCase).join('|')})$` }),
    headers: webhookHeaders,
    body: orNull(text()),
  },
  ['url'],
);

const updateContact: Schema = {
  ...object({ data: { type: 'object' }, subscribed: { type: 'boolean' } }, []),
  anyOf: [{ required: ['data'] }, { required: ['subscribed'] }],
};

/** The `config` each step type takes (src/automations/step-config.ts); null counts as `{}`. */
const CONFIGS: Record<string, Schema> = {
  SEND_EMAIL: sendEmail,
  DELAY: duration,
  WAIT_FOR_EVENT: object({ eventName: text(255), timeout: orNull(duration) }, ['eventName']),
  CONDITION: object({ condition: schemaRef('Condition') }),
  WEBHOOK: webhook,
  UPDATE_CONTACT: updateContact,
};

/** `POST /workflows/{id}/steps` when `fields` are the other properties: `config` must suit `type`. */
export const newStepBody = (fields: Record<string, Schema>): Schema => ({
  ...object({ type: { type: 'string', enum: STEP_TYPES }, ...fields, config: orNull(fields.config) }, ['type']),
  anyOf: STEP_TYPES.map((type) =>
    type in CONFIGS ? object({ type: { const: type }, config: CONFIGS[type] }) : object({ type: { const: type } }),
  ),
});
