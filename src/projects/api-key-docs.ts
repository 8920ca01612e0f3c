import type { EndpointDoc, Tag } from '../openapi/types';
import { ApiKeyCheck } from './projects-dtos';

export const tag: Tag = { name: 'API key', description: 'Checking an API key.' };

export const getApiKey: EndpointDoc = {
  operationId: 'getApiKey',
  summary: 'Check the secret key',
  description: 'Answers which project the key belongs to. Counts against the rate limit like any API request.',
  response: { description: 'The key works.', shape: ApiKeyCheck },
};
