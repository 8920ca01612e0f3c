import { commonErrors, jsonResponse, object, rateLimitHeaders, uuid } from '../builders';
import type { PathModule } from '../types';

/** `GET /v1/api-key`: lets a client check its secret key before using it. */
export const pathModule: PathModule = {
  tag: { name: 'API key', description: 'Checking an API key.' },
  paths: {
    '/v1/api-key': {
      get: {
        operationId: 'getApiKey',
        summary: 'Check the secret key',
        description: 'Answers which project the key belongs to. Counts against the rate limit like any API request.',
        responses: {
          '200': jsonResponse(
            'The key works.',
            object({
              success: { const: true },
              data: object({
                projectId: uuid,
                projectName: { type: 'string' },
                keyKind: { type: 'string', enum: ['secret'] },
              }),
            }),
            { headers: rateLimitHeaders },
          ),
          ...commonErrors(401, 403, 429),
        },
      },
    },
  },
};
