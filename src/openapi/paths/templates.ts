import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  emailAddress,
  errorExample,
  jsonBody,
  jsonResponse,
  notBlank,
  object,
  offsetPage,
  orNull,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  singleLine,
  sortDirParam,
  uuid,
} from '../builders';
import type { PathModule, Response, Schema } from '../types';

/** The template language shared by templates, `/v1/send` bodies, campaigns and workflow emails, as Markdown. */
export const TEMPLATE_LANGUAGE = [
  'Subjects and bodies are [Liquid](https://liquidjs.com/) templates with a few additions:',
  '',
  '- `{{ name }}` inserts a variable; `{{ profile.tier }}` reads nested data.',
  "- `{{ name ?? 'friend' }}` uses the fallback only when the value is missing or null (an empty string, `0` or " +
    "`false` is printed as is). Fallbacks chain (`{{ nickname ?? name ?? 'friend' }}`) and filters may follow " +
    "(`{{ name ?? 'friend' | capitalize }}`); `??` after a filter is a syntax error.",
  "- Keys with spaces (CSV headers): `{{first name}}` or `{{data['first name']}}`. The short form takes words of " +
    'letters, digits, `_` and `-`; other keys use the `data[...]` form.',
  '- `{% if %}`, `{% unless %}`, `{% case %}`, `{% for %}`, `{% assign %}`, `{% capture %}` and the standard filters ' +
    '(`capitalize`, `upcase`, `downcase`, `default`, `date`, `escape`, `join`, …) are available. `{% include %}`, ' +
    '`{% render %}` and `{% layout %}` are not.',
  '',
  "Variables: the contact's `data` keys at top level, `data` (the same object), `email`, one-off values " +
    '(`{ value, persistent: false }` in the request `data`), and `unsubscribeUrl`, `subscribeUrl`, `manageUrl`. ' +
    'An unknown variable renders as nothing.',
  '',
  'In HTML bodies every output is **HTML-escaped** (`{{ value }}` holding `<a ...>` renders `&lt;a ...`), whatever ' +
    'the form (`??`, `{{first name}}`, `data[...]`); `{{ value | raw }}` inserts a value as stored, and a value ' +
    'already passed through `| escape` is not escaped twice. Subjects, the plain-text part and header values are not ' +
    'escaped. A syntax error (unclosed tag, unknown filter or tag) is refused with 422 `VALIDATION_ERROR`, field code ' +
    '`invalid_template`, when the template is saved. A plain-text alternative is generated from the rendered HTML.',
].join('\n');

const templateId = pathParam('id', 'The template.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const emailType: Schema = { type: 'string', enum: ['MARKETING', 'TRANSACTIONAL', 'HEADLESS'] };

const exampleTemplate = {
  id: '3f6c1d2e-9a8b-4c7d-8e5f-1a2b3c4d5e6f',
  name: 'Welcome',
  description: 'First email after sign-up',
  subject: "Welcome, {{ first name ?? 'friend' }}",
  body: '<p>Hi {{ name ?? \'there\' | capitalize }},</p><p>Your plan: {{ profile.tier }}</p>',
  from: 'hello@example.com',
  fromName: 'Example',
  replyTo: 'support@example.com',
  type: 'MARKETING',
  projectId: '0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a',
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};

const fields = {
  name: described(notBlank({ type: 'string', maxLength: 255 }), 'Internal name; stored trimmed.'),
  description: described(orNull({ type: 'string', maxLength: 2000 }), 'Internal note, never sent to recipients.'),
  subject: described({ type: 'string', maxLength: 998 }, 'Liquid template; rendered on one line. Defaults to an empty string.'),
  body: described({ type: 'string' }, 'HTML with Liquid placeholders. Defaults to an empty string.'),
  from: described(emailAddress, "Sender address; its domain (or a parent domain) must be verified for the project."),
  fromName: described(orNull(singleLine({ type: 'string', maxLength: 255 })), 'Sender display name; no line breaks.'),
  replyTo: described(orNull(emailAddress), 'Reply-to address.'),
  type: described(
    emailType,
    '`MARKETING` (default) adds the unsubscribe link and `List-Unsubscribe` headers and skips unsubscribed contacts ' +
      'in campaigns and workflows; `TRANSACTIONAL` and `HEADLESS` do not.',
  ),
};

const missingField: Response = jsonResponse(
  'A missing or empty `name` or `from` answers the bare body `{ error }`; a body that is not valid JSON answers ' +
    '`BAD_REQUEST` in the error envelope.',
  { oneOf: [schemaRef('BareError'), schemaRef('ErrorResponse')] },
  {
    examples: {
      missingFrom: { summary: 'No sender', value: { error: 'from is required' } },
      malformed: { summary: 'Malformed JSON', value: errorExample(400, 'BAD_REQUEST', 'Malformed JSON in request body') },
    },
  },
);

const invalid: Response = jsonResponse(
  'A field is invalid (`VALIDATION_ERROR`), for example a subject or body that does not parse (field code ' +
    '`invalid_template`); nothing was written.',
  schemaRef('ErrorResponse'),
  {
    example: errorExample(422, 'VALIDATION_ERROR', 'The template does not parse', {
      errors: [
        {
          field: 'body',
          code: 'invalid_template',
          message: 'Template syntax error in body: tag {% if vip %} not closed, line:1, col:1',
        },
      ],
      suggestion: 'Check the fields listed in error.errors and send the request again.',
    }),
  },
);

const unverifiedSender: Response = jsonResponse(
  "The sender domain is not verified for the project (`INTERNAL_SERVER_ERROR`, as the specification fixes it).",
  schemaRef('ErrorResponse'),
  {
    example: errorExample(
      403,
      'INTERNAL_SERVER_ERROR',
      'The sender domain unverified.example is not verified for this project. Add it with POST /domains and publish its DNS records to verify it.',
      { details: { domain: 'unverified.example' } },
    ),
  },
);

/** Templates: reusable subject, body and sender, rendered per recipient. */
export const pathModule: PathModule = {
  tag: {
    name: 'Templates',
    description: `Reusable emails used by \`/v1/send\` (\`template\`), campaigns and workflow steps. Secret key.\n\n${TEMPLATE_LANGUAGE}`,
  },
  schemas: {
    Template: {
      ...object({
        id: uuid,
        ...fields,
        projectId: uuid,
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
      example: exampleTemplate,
    },
    TemplateUsage: object({
      campaigns: arrayOf(object({ id: uuid, name: { type: 'string' } })),
      workflows: arrayOf(object({ id: uuid, name: { type: 'string' }, stepId: uuid })),
    }),
  },
  paths: {
    '/templates': {
      get: {
        operationId: 'listTemplates',
        summary: 'List templates',
        description: 'Offset-paginated. Unrecognised `type`, `sort` or `dir` values are ignored (the defaults apply).',
        parameters: [
          parameterRef('Page'),
          queryParam('pageSize', 'Items per page; larger values are clamped to 100.', {
            type: 'integer',
            minimum: 1,
            maximum: 100,
            default: 20,
          }),
          queryParam('type', 'Only templates of this type (case-insensitive); an unrecognised value is ignored.', emailType),
          queryParam('search', 'Case-insensitive substring of the name, description or subject.', { type: 'string' }),
          queryParam('sort', 'Sort key; an unrecognised value falls back to `createdAt`. `name` sorts case-insensitively.', {
            type: 'string',
            enum: ['createdAt', 'name', 'updatedAt'],
            default: 'createdAt',
          }),
          sortDirParam(),
        ],
        responses: {
          '200': jsonResponse('A page of templates.', offsetPage(schemaRef('Template')), okHeaders),
          ...commonErrors(...secretKeyErrors),
        },
      },
      post: {
        operationId: 'createTemplate',
        summary: 'Create a template',
        description:
          'Checks the Liquid syntax of `subject` and `body` (422) and that the domain of `from` is verified for the ' +
          'project (403) before anything is stored.',
        requestBody: jsonBody(object(fields, ['name', 'from'])),
        responses: {
          '201': jsonResponse('The new template.', schemaRef('Template'), { ...okHeaders, example: exampleTemplate }),
          '400': missingField,
          '403': unverifiedSender,
          '422': invalid,
          ...commonErrors(401, 413, 429),
        },
      },
    },
    '/templates/{id}': {
      parameters: [templateId],
      get: {
        operationId: 'getTemplate',
        summary: 'Get a template',
        responses: {
          '200': jsonResponse('The template.', schemaRef('Template'), okHeaders),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
      patch: {
        operationId: 'updateTemplate',
        summary: 'Update a template',
        description:
          'Changes only the fields sent, with the same checks as create; `from` is checked again when it changes. ' +
          '`name` and `from` may be left out but not emptied. `null` clears `description`, `fromName` and `replyTo`.',
        requestBody: jsonBody(object(fields, [])),
        responses: {
          '200': jsonResponse('The updated template.', schemaRef('Template'), okHeaders),
          '400': missingField,
          '403': unverifiedSender,
          '422': invalid,
          ...commonErrors(401, 404, 413, 429),
        },
      },
      delete: {
        operationId: 'deleteTemplate',
        summary: 'Delete a template',
        description: 'Emails already sent from it keep their content.',
        responses: {
          '200': jsonResponse('Deleted.', schemaRef('Success'), { ...okHeaders, example: { success: true } }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/templates/{id}/duplicate': {
      parameters: [templateId],
      post: {
        operationId: 'duplicateTemplate',
        summary: 'Duplicate a template',
        description: 'Copies every field into a new template named `<name> (copy)`; the sender domain must still be verified.',
        responses: {
          '201': jsonResponse('The id of the copy.', object({ id: uuid }), {
            ...okHeaders,
            example: { id: '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d' },
          }),
          '403': unverifiedSender,
          ...commonErrors(401, 404, 429),
        },
      },
    },
    '/templates/{id}/usage': {
      parameters: [templateId],
      get: {
        operationId: 'getTemplateUsage',
        summary: 'Find where a template is used',
        description: 'The campaigns and the workflow steps (`SEND_EMAIL` with `templateId`) that reference the template.',
        responses: {
          '200': jsonResponse('The referencing resources.', schemaRef('TemplateUsage'), {
            ...okHeaders,
            example: { campaigns: [], workflows: [] },
          }),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
