import { jsonResponse } from '../openapi/builders';
import { dtoRef } from '../openapi/operations';
import type { EndpointDoc, Tag } from '../openapi/types';
import { Health, PublicConfig } from './system-dtos';

export const tag: Tag = { name: 'System', description: 'Liveness and the public feature configuration. No authentication.' };

export const getHealth: EndpointDoc = {
  operationId: 'getHealth',
  summary: 'Check health',
  description: 'Reports whether the database and Temporal answer. 503 when the database is down.',
  response: { description: 'The database is up.', shape: Health, example: { status: 'ok', database: 'up', temporal: 'up' } },
  errors: {
    '503': jsonResponse('The database is down.', dtoRef(Health), { example: { status: 'degraded', database: 'down', temporal: 'up' } }),
  },
};

export const getConfig: EndpointDoc = {
  operationId: 'getConfig',
  summary: 'Get public configuration',
  description: 'The version and the enabled features, for the dashboard to adapt itself.',
  response: {
    description: 'Version and feature flags.',
    shape: PublicConfig,
    example: { version: '0.1.0', features: { signups: true, billing: false, oauth: { github: false, google: false }, transport: 'outbox' } },
  },
};
