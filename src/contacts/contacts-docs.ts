import { errorExample, errorResponse, jsonResponse, pathParam, rateLimitHeaders, schemaRef } from '../openapi/builders';
import { cursorPageOf, dtoRef } from '../openapi/operations';
import type { EndpointDoc, Schema, Tag } from '../openapi/types';
import { Contact, ContactFieldList, ContactFieldUsage, ContactFieldValues, ContactLookup, ContactUpsertResult, DeletedContactField } from './contacts-dtos';

/** The rules every `data` payload follows (contacts, `/v1/track`, `/v1/send`, CSV columns), as Markdown. */
export const DATA_RULES = [
  '`data` rules:',
  '',
  '- **Patch semantics**: only the keys sent change; every other key keeps its value.',
  '- **Reserved keys** are silently dropped, with no error: `id`, `herald_id`, `herald_email`, `email`, ' +
    '`unsubscribeUrl`, `subscribeUrl`, `manageUrl`. Change `email` and `subscribed` through their own request fields.',
  '- `null` **deletes** the key from the contact.',
  '- An **empty string is ignored**: the stored value is not overwritten.',
  '- `{ "value": …, "persistent": false }` is used for this request only (template variable, event data) and is ' +
    'not stored on the contact.',
  '- Any other value (string, number, boolean, plain object) is stored as sent.',
  '- **Type inference**: the first non-null value seen for a key in the project fixes its type, which stays (sticky) ' +
    'even when later values differ: `number` (`42`, `3.14`), `boolean`, `date` (a string `YYYY-MM-DD` or a full ISO ' +
    '8601 UTC time `YYYY-MM-DDTHH:MM:SS[.sss]Z`), `object`, else `string`. Date filters (`within`, `olderThan`) need ' +
    'such a date string.',
  '- **At most 1,000 distinct keys per project** (top-level keys, the fields of `GET /contacts/fields`). A write that ' +
    'would add keys past that is refused whole with 422 `VALIDATION_ERROR` (field code `too_many_keys`, ' +
    '`details: { limit, existing, adding }`); a CSV import fails, an `UPDATE_CONTACT` step fails its execution. ' +
    'Keys already known may always be written; `DELETE /contacts/fields/{field}` makes room.',
].join('\n');

export const tag: Tag = {
  name: 'Contacts',
  description:
    'The people a project emails. A contact has built-in fields (`email`, unique per project and stored ' +
    'lower-case; `subscribed`; timestamps) and free-form custom fields in `data`, used as template variables, ' +
    'in segment filters and in workflow conditions. Secret key.',
};

/** A `data` payload is free-form (any keys), so no DTO describes it: its schema is the rules' prose. */
export const ContactDataPatch: Schema = {
  type: 'object',
  additionalProperties: true,
  description: DATA_RULES,
  example: { plan: 'pro', seats: 5, oldField: null, nickname: '', coupon: { value: 'WELCOME10', persistent: false } },
};

const exampleContact = {
  id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  email: 'ada@example.com',
  subscribed: true,
  snoozedUntil: null,
  data: { firstName: 'Ada', plan: 'pro', seats: 5, trialEndsAt: '2025-02-01' },
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};

const contactId = pathParam('id', 'The contact.');
const fieldParam = pathParam(
  'field',
  'A custom field, as `data.<key>` or just `<key>` (URL-encoded when it contains spaces or slashes).',
  { type: 'string', minLength: 1 },
);

export const listContacts: EndpointDoc = {
  operationId: 'listContacts',
  summary: 'List contacts',
  description: 'Cursor-paginated. `total` is filled on the first page only (0 when a `cursor` is given).',
  response: { description: 'A page of contacts.', shape: cursorPageOf(Contact) },
};

export const upsertContact: EndpointDoc = {
  operationId: 'upsertContact',
  summary: 'Create or update a contact',
  description:
    'Upserts by email (matched case-insensitively). A new contact is subscribed unless `subscribed` says ' +
    'otherwise; an existing one keeps its state unless `subscribed` is given. Answers 201 when the contact ' +
    `was created, 200 when it was updated.\n\n${DATA_RULES}`,
  response: {
    status: 201,
    description: 'A new contact was created.',
    shape: ContactUpsertResult,
    example: { ...exampleContact, _meta: { isNew: true, isUpdate: false } },
  },
  errors: {
    '200': jsonResponse('An existing contact was updated.', dtoRef(ContactUpsertResult), {
      headers: rateLimitHeaders,
      example: { ...exampleContact, _meta: { isNew: false, isUpdate: true } },
    }),
    '400': jsonResponse(
      'A missing or invalid `email` answers the bare body `{ error }`; a body that is not valid JSON answers `BAD_REQUEST` in the error envelope.',
      { oneOf: [schemaRef('BareError'), schemaRef('ErrorResponse')] },
      {
        examples: {
          missingEmail: { summary: 'No valid email', value: { error: 'A valid email is required' } },
          malformed: { summary: 'Malformed JSON', value: errorExample(400, 'BAD_REQUEST', 'Malformed JSON in request body') },
        },
      },
    ),
  },
};

export const getContact: EndpointDoc = {
  operationId: 'getContact',
  summary: 'Get a contact',
  parameters: [contactId],
  response: { description: 'The contact.', shape: Contact, example: exampleContact },
};

export const updateContact: EndpointDoc = {
  operationId: 'updateContact',
  summary: 'Update a contact',
  description:
    'Changes only what is sent. Flipping `subscribed` records a `contact.subscribed` or ' +
    `\`contact.unsubscribed\` event (which can trigger workflows).\n\n${DATA_RULES}`,
  parameters: [contactId],
  response: { description: 'The updated contact.', shape: Contact },
  errors: {
    '409': errorResponse(409, 'CONTACT_EMAIL_TAKEN', 'The email belongs to another contact of the project', {
      message: 'Another contact already uses this email',
    }),
  },
};

export const deleteContact: EndpointDoc = {
  operationId: 'deleteContact',
  summary: 'Delete a contact',
  description: 'Permanently deletes the contact and its events.',
  parameters: [contactId],
  response: { status: 204, description: 'Deleted; no body.' },
};

export const lookupContacts: EndpointDoc = {
  operationId: 'lookupContacts',
  summary: 'Check which emails are contacts',
  description: 'Answers one entry per email sent, in request order. 1 to 500 emails per call; otherwise 422.',
  response: {
    description: 'Whether each email belongs to a contact.',
    shape: ContactLookup,
    example: { data: [{ email: 'ada@example.com', exists: true, contactId: exampleContact.id }, { email: 'nobody@example.com', exists: false, contactId: null }] },
  },
};

export const listContactFields: EndpointDoc = {
  operationId: 'listContactFields',
  summary: 'List contact fields',
  description:
    'The standard fields `email`, `subscribed`, `createdAt`, `updatedAt` (`isCustom: false`) and every custom ' +
    'field as `data.<key>`, with its inferred type and coverage.',
  response: {
    description: 'The fields.',
    shape: ContactFieldList,
    example: {
      fields: [
        { field: 'email', type: 'string', isCustom: false, coverage: 1 },
        { field: 'subscribed', type: 'boolean', isCustom: false, coverage: 1 },
        { field: 'createdAt', type: 'date', isCustom: false, coverage: 1 },
        { field: 'updatedAt', type: 'date', isCustom: false, coverage: 1 },
        { field: 'data.plan', type: 'string', isCustom: true, coverage: 0.42 },
      ],
    },
  },
};

export const listContactFieldValues: EndpointDoc = {
  operationId: 'listContactFieldValues',
  summary: 'List the values of a field',
  description: 'The distinct values stored for a custom field, most frequent first.',
  parameters: [fieldParam],
  response: {
    description: 'The values with their number of contacts.',
    shape: ContactFieldValues,
    example: { field: 'data.plan', values: [{ value: 'free', count: 120 }, { value: 'pro', count: 37 }] },
  },
};

export const getContactFieldUsage: EndpointDoc = {
  operationId: 'getContactFieldUsage',
  summary: 'Find where a field is used',
  description:
    'The segments, campaigns and workflows whose conditions reference the field; for workflows also ' +
    '`UPDATE_CONTACT` steps that write it (`data` keys, `subscribed`).',
  parameters: [fieldParam],
  response: { description: 'The referencing resources.', shape: ContactFieldUsage },
};

export const deleteContactField: EndpointDoc = {
  operationId: 'deleteContactField',
  summary: 'Remove a field from every contact',
  description:
    'Removes the custom field from every contact of the project. Segments and workflows that reference it stay ' +
    'but stop matching on it.',
  parameters: [fieldParam],
  response: { description: 'The field is gone.', shape: DeletedContactField, example: { field: 'data.plan', contactsUpdated: 157 } },
};
