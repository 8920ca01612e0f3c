import { arrayOf, errorResponse, schemaRef } from '../openapi/builders';
import type { EndpointDoc, Tag } from '../openapi/types';
import { dtoRef } from '../openapi/operations';
import { projectIdParam } from '../projects/projects-docs';
import { Project, ProjectWithKeys } from '../projects/projects-dtos';
import { User } from './accounts-dtos';

export const tag: Tag = {
  name: 'Users',
  description: 'The signed-in user and their projects (session cookie). A project the user is not a member of answers 404.',
};

const ownerOrAdmin = { '403': errorResponse(403, 'FORBIDDEN', 'Only an OWNER or ADMIN of the project may do this') };

export const getMe: EndpointDoc = {
  operationId: 'getMe',
  summary: 'Get the signed-in user',
  response: { description: 'The user.', shape: User },
};

export const listMyProjects: EndpointDoc = {
  operationId: 'listMyProjects',
  summary: 'List my projects',
  response: { description: 'Every project the user is a member of.', shape: arrayOf(dtoRef(Project)) },
};

export const createProject: EndpointDoc = {
  operationId: 'createProject',
  summary: 'Create a project',
  description: 'The creator becomes its OWNER. The response is the only one besides key regeneration that shows the keys.',
  response: { status: 201, description: 'The new project with its keys.', shape: ProjectWithKeys },
};

export const getProject: EndpointDoc = {
  operationId: 'getProject',
  summary: 'Get a project',
  parameters: [projectIdParam],
  response: { description: 'The project.', shape: Project },
};

export const updateProject: EndpointDoc = {
  operationId: 'updateProject',
  summary: 'Update project settings',
  description: 'Renames the project. OWNER or ADMIN.',
  parameters: [projectIdParam],
  response: { description: 'The updated project.', shape: Project },
  errors: ownerOrAdmin,
};

export const deleteProject: EndpointDoc = {
  operationId: 'deleteProject',
  summary: 'Delete a project',
  description:
    "Deletes the project and all its data, cancelling the Temporal workflows of its work under way. Its domains' " +
    'SES identities are deleted first; when SES cannot be reached: 503 `SERVICE_UNAVAILABLE` and the project ' +
    'stays. OWNER only.',
  parameters: [projectIdParam],
  response: { description: 'Deleted.', shape: schemaRef('Success') },
  errors: {
    '403': errorResponse(403, 'FORBIDDEN', 'Only an OWNER of the project may delete it'),
    '503': errorResponse(503, 'SERVICE_UNAVAILABLE', 'The email provider could not be reached; try again shortly'),
  },
};

export const regenerateProjectKeys: EndpointDoc = {
  operationId: 'regenerateProjectKeys',
  summary: 'Regenerate both API keys',
  description: 'Replaces the public and the secret key together. The old keys stop working at once, with no grace period.',
  parameters: [projectIdParam],
  response: { description: 'The project with its new keys.', shape: ProjectWithKeys },
  errors: ownerOrAdmin,
};

export const resetProject: EndpointDoc = {
  operationId: 'resetProject',
  summary: 'Wipe project data',
  description:
    'Irreversibly deletes contacts, events, emails, campaigns, segments, workflows and templates, and cancels the ' +
    'Temporal workflows of the work under way (scheduled or sending campaigns, running or waiting executions, ' +
    'imports and bulk jobs). The project, its members, keys, domains and its suppression list stay: a reset does ' +
    'not make suppressed addresses reachable again.',
  parameters: [projectIdParam],
  response: { description: 'The data is gone.', shape: schemaRef('Success') },
  errors: ownerOrAdmin,
};
