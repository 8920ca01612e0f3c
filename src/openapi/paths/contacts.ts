import {
  arrayOf,
  commonErrors,
  cursorPage,
  dateTime,
  described,
  email,
  errorExample,
  errorResponse,
  jsonBody,
  jsonResponse,
  object,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  sortDirParam,
  uuid,
} from '../builders';
import type { PathModule, Response, Schema } from '../types';

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

const contactId = pathParam('id', 'The contact.');
const fieldParam = pathParam(
  'field',
  'A custom field, as `data.<key>` or just `<key>` (URL-encoded when it contains spaces or slashes).',
  { type: 'string', minLength: 1 },
);
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };

/** `{ id, name }` of a resource that references a field or an event. */
const usageRef: Schema = object({ id: uuid, name: { type: 'string' } });

const emailTaken = errorResponse(409, 'CONTACT_EMAIL_TAKEN', 'The email belongs to another contact of the project', {
  message: 'Another contact already uses this email',
});

const missingEmail: Response = jsonResponse(
  'A missing or invalid `email` answers the bare body `{ error }`; a body that is not valid JSON answers ' +
    '`BAD_REQUEST` in the error envelope.',
  { oneOf: [schemaRef('BareError'), schemaRef('ErrorResponse')] },
  {
    examples: {
      missingEmail: { summary: 'No valid email', value: { error: 'A valid email is required' } },
      malformed: {
        summary: 'Malformed JSON',
        value: errorExample(400, 'BAD_REQUEST', 'Malformed JSON in request body'),
      },
    },
  },
);

const exampleContact = {
  id: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  email: 'ada@example.com',
  subscribed: true,
  snoozedUntil: null,
  data: { firstName: 'Ada', plan: 'pro', seats: 5, trialEndsAt: '2025-02-01' },
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};

/** Contacts: the audience of a project, with built-in fields and free-form `data`. */
export const pathModule: PathModule = {
  tag: {
    name: 'Contacts',
    description:
      'The people a project emails. A contact has built-in fields (`email`, unique per project and stored ' +
      'lower-case; `subscribed`; timestamps) and free-form custom fields in `data`, used as template variables, ' +
      'in segment filters and in workflow conditions. Secret key.',
  },
  schemas: {
    Contact: {
      ...object({
        id: uuid,
        email: described(email, 'Unique within the project; stored lower-case.'),
        subscribed: described({ type: 'boolean' }, 'Whether the contact receives marketing email.'),
        snoozedUntil: { ...dateTime, type: ['string', 'null'] },
        data: described({ type: 'object', additionalProperties: true }, 'Custom fields.'),
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
      example: exampleContact,
    },
    ContactDataPatch: {
      type: 'object',
      additionalProperties: true,
      description: DATA_RULES,
      example: {
        plan: 'pro',
        seats: 5,
        oldField: null,
        nickname: '',
        coupon: { value: 'WELCOME10', persistent: false },
      },
    },
    ContactUpsertResult: {
      allOf: [
        schemaRef('Contact'),
        object({
          _meta: object({
            isNew: described({ type: 'boolean' }, 'True when the contact was created (status 201).'),
            isUpdate: described({ type: 'boolean' }, 'True when an existing contact was updated (status 200).'),
          }),
        }),
      ],
    },
    ContactField: object({
      field: described(
        { type: 'string' },
        '`email`, `subscribed`, `createdAt`, `updatedAt`, or `data.<key>` for a custom field.',
      ),
      type: described(
        { type: 'string', enum: ['string', 'number', 'boolean', 'date', 'object'] },
        'For custom fields, the type inferred from the first value seen (sticky).',
      ),
      isCustom: described({ type: 'boolean' }, 'False for the standard fields.'),
      coverage: described({ type: 'number', minimum: 0, maximum: 1 }, 'Share of contacts that have the field set.'),
    }),
  },
  paths: {
    '/contacts': {
      get: {
        operationId: 'listContacts',
        summary: 'List contacts',
        description: 'Cursor-paginated. `total` is filled on the first page only (0 when a `cursor` is given).',
        parameters: [
          parameterRef('Limit'),
          parameterRef('Cursor'),
          queryParam('search', 'Only contacts whose email contains this text (case-insensitive).', { type: 'string' }),
          queryParam('subscribed', 'Only subscribed (`true`) or unsubscribed (`false`) contacts; omit for both.', {
            type: 'boolean',
          }),
          queryParam('sort', 'Sort key; an unrecognised value falls back to `createdAt`.', {
            type: 'string',
            enum: ['createdAt', 'email'],
            default: 'createdAt',
          }),
          sortDirParam(),
        ],
        responses: {
          '200': jsonResponse('A page of contacts.', cursorPage(schemaRef('Contact')), okHeaders),
          ...commonErrors(...secretKeyErrors),
        },
      },
      post: {
        operationId: 'upsertContact',
        summary: 'Create or update a contact',
        description:
          'Upserts by email (matched case-insensitively). A new contact is subscribed unless `subscribed` says ' +
          'otherwise; an existing one keeps its state unless `subscribed` is given. Answers 201 when the contact ' +
          `was created, 200 when it was updated.\n\n${DATA_RULES}`,
        requestBody: jsonBody(
          object(
            {
              email,
              subscribed: described({ type: 'boolean' }, 'Defaults to `true` for a new contact.'),
              data: schemaRef('ContactDataPatch'),
            },
            ['email'],
          ),
        ),
        responses: {
          '200': jsonResponse('An existing contact was updated.', schemaRef('ContactUpsertResult'), {
            ...okHeaders,
            example: { ...exampleContact, _meta: { isNew: false, isUpdate: true } },
          }),
          '201': jsonResponse('A new contact was created.', schemaRef('ContactUpsertResult'), {
            ...okHeaders,
            example: { ...exampleContact, _meta: { isNew: true, isUpdate: false } },
          }),
          '400': missingEmail,
          ...commonErrors(...secretKeyErrors, 413, 422),
        },
      },
    },
    '/contacts/{id}': {
      parameters: [contactId],
      get: {
        operationId: 'getContact',
        summary: 'Get a contact',
        responses: {
          '200': jsonResponse('The contact.', schemaRef('Contact'), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
      patch: {
        operationId: 'updateContact',
        summary: 'Update a contact',
        description:
          'Changes only what is sent. Flipping `subscribed` records a `contact.subscribed` or ' +
          `\`contact.unsubscribed\` event (which can trigger workflows).\n\n${DATA_RULES}`,
        requestBody: jsonBody(
          object(
            {
              email: described(email, 'The new address; must not belong to another contact of the project.'),
              subscribed: { type: 'boolean' },
              data: schemaRef('ContactDataPatch'),
            },
            [],
          ),
        ),
        responses: {
          '200': jsonResponse('The updated contact.', schemaRef('Contact'), okHeaders),
          '409': emailTaken,
          ...commonErrors(400, ...secretKeyErrors, 404, 413, 422),
        },
      },
      delete: {
        operationId: 'deleteContact',
        summary: 'Delete a contact',
        description: 'Permanently deletes the contact and its events.',
        responses: {
          '204': { description: 'Deleted; no body.', headers: rateLimitHeaders },
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/contacts/lookup': {
      post: {
        operationId: 'lookupContacts',
        summary: 'Check which emails are contacts',
        description: 'Answers one entry per email sent, in request order. 1 to 500 emails per call; otherwise 422.',
        requestBody: jsonBody(object({ emails: { ...arrayOf({ type: 'string' }), minItems: 1, maxItems: 500 } })),
        responses: {
          '200': jsonResponse(
            'Whether each email belongs to a contact.',
            object({
              data: arrayOf(
                object({
                  email: { type: 'string' },
                  exists: { type: 'boolean' },
                  contactId: described({ ...uuid, type: ['string', 'null'] }, 'Null when no contact has the email.'),
                }),
              ),
            }),
            {
              ...okHeaders,
              example: {
                data: [
                  { email: 'ada@example.com', exists: true, contactId: exampleContact.id },
                  { email: 'nobody@example.com', exists: false, contactId: null },
                ],
              },
            },
          ),
          ...commonErrors(400, ...secretKeyErrors, 413, 422),
        },
      },
    },
    '/contacts/fields': {
      get: {
        operationId: 'listContactFields',
        summary: 'List contact fields',
        description:
          'The standard fields `email`, `subscribed`, `createdAt`, `updatedAt` (`isCustom: false`) and every custom ' +
          'field as `data.<key>`, with its inferred type and coverage.',
        responses: {
          '200': jsonResponse('The fields.', object({ fields: arrayOf(schemaRef('ContactField')) }), {
            ...okHeaders,
            example: {
              fields: [
                { field: 'email', type: 'string', isCustom: false, coverage: 1 },
                { field: 'subscribed', type: 'boolean', isCustom: false, coverage: 1 },
                { field: 'createdAt', type: 'date', isCustom: false, coverage: 1 },
                { field: 'updatedAt', type: 'date', isCustom: false, coverage: 1 },
                { field: 'data.plan', type: 'string', isCustom: true, coverage: 0.42 },
              ],
            },
          }),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/contacts/fields/{field}/values': {
      parameters: [fieldParam],
      get: {
        operationId: 'listContactFieldValues',
        summary: 'List the values of a field',
        description: 'The distinct values stored for a custom field, most frequent first.',
        parameters: [
          queryParam('limit', 'How many distinct values to return (at most 500).', {
            type: 'integer',
            minimum: 1,
            maximum: 500,
            default: 50,
          }),
        ],
        responses: {
          '200': jsonResponse(
            'The values with their number of contacts.',
            object({
              field: { type: 'string' },
              values: arrayOf(
                object({
                  value: { description: 'A stored value, as stored.' },
                  count: described({ type: 'integer', minimum: 1 }, 'Contacts having this value.'),
                }),
              ),
            }),
            {
              ...okHeaders,
              example: {
                field: 'data.plan',
                values: [
                  { value: 'free', count: 120 },
                  { value: 'pro', count: 37 },
                ],
              },
            },
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/contacts/fields/{field}/usage': {
      parameters: [fieldParam],
      get: {
        operationId: 'getContactFieldUsage',
        summary: 'Find where a field is used',
        description:
          'The segments, campaigns and workflows whose conditions reference the field; for workflows also ' +
          '`UPDATE_CONTACT` steps that write it (`data` keys, `subscribed`).',
        responses: {
          '200': jsonResponse(
            'The referencing resources.',
            object({
              field: { type: 'string' },
              segments: arrayOf(usageRef),
              campaigns: arrayOf(usageRef),
              workflows: arrayOf(usageRef),
            }),
            okHeaders,
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/contacts/fields/{field}': {
      parameters: [fieldParam],
      delete: {
        operationId: 'deleteContactField',
        summary: 'Remove a field from every contact',
        description:
          'Removes the custom field from every contact of the project. Segments and workflows that reference it stay ' +
          'but stop matching on it.',
        responses: {
          '200': jsonResponse(
            'The field is gone.',
            object({
              field: { type: 'string' },
              contactsUpdated: described({ type: 'integer', minimum: 0 }, 'How many contacts had the field.'),
            }),
            { ...okHeaders, example: { field: 'data.plan', contactsUpdated: 157 } },
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
  },
};
