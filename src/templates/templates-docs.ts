import { errorExample, jsonResponse, object, pathParam, schemaRef, uuid } from '../openapi/builders';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { offsetPageOf } from '../openapi/operations';
import { Template, TemplateUsage } from './templates-dtos';

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

export const tag: Tag = {
  name: 'Templates',
  description: `Reusable emails used by \`/v1/send\` (\`template\`), campaigns and workflow steps. Secret key.\n\n${TEMPLATE_LANGUAGE}`,
};

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

const templateId = pathParam('id', 'The template.');

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


export const listTemplates: EndpointDoc = {
  operationId: 'listTemplates',
  summary: 'List templates',
  description: 'Offset-paginated. Unrecognised `type`, `sort` or `dir` values are ignored (the defaults apply).',
  response: { description: 'A page of templates.', shape: offsetPageOf(Template) },
};

export const createTemplate: EndpointDoc = {
  operationId: 'createTemplate',
  summary: 'Create a template',
  description:
    'Checks the Liquid syntax of `subject` and `body` (422) and that the domain of `from` is verified for the ' +
    'project (403) before anything is stored.',
  response: { status: 201, description: 'The new template.', shape: Template, example: exampleTemplate },
  errors: { '400': missingField, '403': unverifiedSender, '422': invalid },
};

export const getTemplate: EndpointDoc = {
  operationId: 'getTemplate',
  summary: 'Get a template',
  parameters: [templateId],
  response: { description: 'The template.', shape: Template },
};

export const updateTemplate: EndpointDoc = {
  operationId: 'updateTemplate',
  summary: 'Update a template',
  description:
    'Changes only the fields sent, with the same checks as create; `from` is checked again when it changes. ' +
    '`name` and `from` may be left out but not emptied. `null` clears `description`, `fromName` and `replyTo`.',
  parameters: [templateId],
  response: { description: 'The updated template.', shape: Template },
  errors: { '400': missingField, '403': unverifiedSender, '422': invalid },
};

export const deleteTemplate: EndpointDoc = {
  operationId: 'deleteTemplate',
  summary: 'Delete a template',
  description: 'Emails already sent from it keep their content.',
  parameters: [templateId],
  response: { description: 'Deleted.', shape: schemaRef('Success'), example: { success: true } },
};

export const duplicateTemplate: EndpointDoc = {
  operationId: 'duplicateTemplate',
  summary: 'Duplicate a template',
  description: 'Copies every field into a new template named `<name> (copy)`; the sender domain must still be verified.',
  parameters: [templateId],
  response: { status: 201, description: 'The id of the copy.', shape: object({ id: uuid }), example: { id: '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d' } },
  errors: { '403': unverifiedSender },
};

export const getTemplateUsage: EndpointDoc = {
  operationId: 'getTemplateUsage',
  summary: 'Find where a template is used',
  description: 'The campaigns and the workflow steps (`SEND_EMAIL` with `templateId`) that reference the template.',
  parameters: [templateId],
  response: { description: 'The referencing resources.', shape: TemplateUsage, example: { campaigns: [], workflows: [] } },
};
