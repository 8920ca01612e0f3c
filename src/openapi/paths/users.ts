import {
  arrayOf,
  commonErrors,
  dateTime,
  described,
  errorResponse,
  jsonBody,
  jsonResponse,
  object,
  pathParam,
  schemaRef,
  sessionAuth,
  uuid,
} from '../builders';
import type { PathModule, Schema } from '../types';

const name: Schema = { type: 'string', minLength: 1, maxLength: 100 };
const projectId = pathParam('id', 'The project.');
const ownerOrAdmin = errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may do this');

/** The signed-in user and the projects they belong to, including project creation and key rotation. */
export const pathModule: PathModule = {
  tag: {
    name: 'Users',
    description:
      'The signed-in user and their projects (session cookie). A project the user is not a member of answers 404.',
  },
  schemas: {
    MemberRole: described(
      { type: 'string', enum: ['OWNER', 'ADMIN', 'MEMBER'] },
      'OWNER and ADMIN manage members and keys; only an OWNER deletes the project. A project always keeps an OWNER.',
    ),
    Project: object({
      id: uuid,
      name,
      publicKeyPrefix: described({ type: 'string' }, 'The start of the public key, for recognising it.'),
      secretKeyPrefix: described({ type: 'string' }, 'The start of the secret key, for recognising it.'),
      role: described(schemaRef('MemberRole'), "The signed-in user's role in the project."),
      disabled: described({ type: 'boolean' }, 'A disabled project is refused on every API endpoint (403 `PROJECT_DISABLED`).'),
      disabledReason: { type: ['string', 'null'] },
      createdAt: dateTime,
      updatedAt: dateTime,
    }),
    ProjectWithKeys: {
      allOf: [
        schemaRef('Project'),
        object({
          publicKey: described({ type: 'string', pattern: '^pk_[A-Za-z0-9]{32,}$' }, 'Allowed only on `POST /v1/track`.'),
          secretKey: described({ type: 'string', pattern: '^sk_[A-Za-z0-9]{32,}$' }, 'Allowed on every API endpoint.'),
        }),
      ],
      description:
        'A project with its two API keys in full. Herald stores only their hashes: this is the one time they are shown.',
    },
  },
  paths: {
    '/users/@me': {
      get: {
        operationId: 'getMe',
        summary: 'Get the signed-in user',
        security: sessionAuth,
        responses: { '200': jsonResponse('The user.', schemaRef('User')), ...commonErrors(401) },
      },
    },
    '/users/@me/projects': {
      get: {
        operationId: 'listMyProjects',
        summary: 'List my projects',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('Every project the user is a member of.', arrayOf(schemaRef('Project'))),
          ...commonErrors(401),
        },
      },
      post: {
        operationId: 'createProject',
        summary: 'Create a project',
        description: 'The creator becomes its OWNER. The response is the only one besides key regeneration that shows the keys.',
        security: sessionAuth,
        requestBody: jsonBody(object({ name })),
        responses: {
          '201': jsonResponse('The new project with its keys.', schemaRef('ProjectWithKeys')),
          ...commonErrors(400, 401, 413, 422),
        },
      },
    },
    '/users/@me/projects/{id}': {
      parameters: [projectId],
      get: {
        operationId: 'getProject',
        summary: 'Get a project',
        security: sessionAuth,
        responses: { '200': jsonResponse('The project.', schemaRef('Project')), ...commonErrors(401, 404) },
      },
      patch: {
        operationId: 'updateProject',
        summary: 'Update project settings',
        description: 'Renames the project. OWNER or ADMIN.',
        security: sessionAuth,
        requestBody: jsonBody(object({ name })),
        responses: {
          '200': jsonResponse('The updated project.', schemaRef('Project')),
          '403': ownerOrAdmin,
          ...commonErrors(400, 401, 404, 413, 422),
        },
      },
      delete: {
        operationId: 'deleteProject',
        summary: 'Delete a project',
        description:
          "Deletes the project and all its data, cancelling the Temporal workflows of its work under way. Its domains' " +
          'SES identities are deleted first; when SES cannot be reached: 503 `SERVICE_UNAVAILABLE` and the project ' +
          'stays. OWNER only.',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('Deleted.', schemaRef('Success')),
          '403': errorResponse(403, 'FORBIDDEN', 'Only an OWNER of the project may delete it'),
          '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The email provider could not be reached; try again shortly'),
          ...commonErrors(401, 404),
        },
      },
    },
    '/users/@me/projects/{id}/regenerate-keys': {
      parameters: [projectId],
      post: {
        operationId: 'regenerateProjectKeys',
        summary: 'Regenerate both API keys',
        description: 'Replaces the public and the secret key together. The old keys stop working at once, with no grace period.',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('The project with its new keys.', schemaRef('ProjectWithKeys')),
          '403': ownerOrAdmin,
          ...commonErrors(401, 404),
        },
      },
    },
    '/users/@me/projects/{id}/reset': {
      parameters: [projectId],
      post: {
        operationId: 'resetProject',
        summary: 'Wipe project data',
        description:
          'Irreversibly deletes contacts, events, emails, campaigns, segments, workflows and templates, and cancels the ' +
          'Temporal workflows of the work under way (scheduled or sending campaigns, running or waiting executions, ' +
          'imports and bulk jobs). The project, its members, keys, domains and its suppression list stay: a reset does ' +
          'not make suppressed addresses reachable again.',
        security: sessionAuth,
        responses: {
          '200': jsonResponse('The data is gone.', schemaRef('Success')),
          '403': ownerOrAdmin,
          ...commonErrors(401, 404),
        },
      },
    },
  },
};
