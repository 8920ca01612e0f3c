import { commonErrors, described, jsonResponse, noAuth, object, schemaRef } from '../builders';
import type { PathModule } from '../types';

const upOrDown = { type: 'string', enum: ['up', 'down'] };

/** `GET /health` and `GET /config`: what a load balancer and the dashboard ask before anything else. */
export const pathModule: PathModule = {
  tag: { name: 'System', description: 'Liveness and the public feature configuration. No authentication.' },
  schemas: {
    Health: object({
      status: described({ type: 'string', enum: ['ok', 'degraded'] }, '`ok` when the database answers, else `degraded`.'),
      database: upOrDown,
      temporal: described(upOrDown, 'Temporal being down does not fail the check: the API still accepts work.'),
    }),
    PublicConfig: object({
      version: described({ type: 'string' }, 'The running Herald version.'),
      features: object({
        signups: described({ type: 'boolean' }, 'False when the deployment sets `DISABLE_SIGNUPS`.'),
        billing: described({ type: 'boolean' }, 'True when Stripe billing is configured.'),
        oauth: described(object({ github: { type: 'boolean' }, google: { type: 'boolean' } }), 'True for a provider whose client id and secret are set (see GET /auth/oauth-config).'),
        transport: described(
          { type: 'string', enum: ['ses', 'smtp', 'outbox'] },
          '`outbox` keeps every message on this server (see `GET /outbox`) instead of delivering it.',
        ),
      }),
    }),
  },
  paths: {
    '/health': {
      get: {
        operationId: 'getHealth',
        summary: 'Check health',
        description: 'Reports whether the database and Temporal answer. 503 when the database is down.',
        security: noAuth,
        responses: {
          '200': jsonResponse('The database is up.', schemaRef('Health'), {
            example: { status: 'ok', database: 'up', temporal: 'up' },
          }),
          '503': jsonResponse('The database is down.', schemaRef('Health'), {
            example: { status: 'degraded', database: 'down', temporal: 'up' },
          }),
          ...commonErrors(),
        },
      },
    },
    '/config': {
      get: {
        operationId: 'getConfig',
        summary: 'Get public configuration',
        description: 'The version and the enabled features, for the dashboard to adapt itself.',
        security: noAuth,
        responses: {
          '200': jsonResponse('Version and feature flags.', schemaRef('PublicConfig'), {
            example: {
              version: '0.1.0',
              features: { signups: true, billing: false, oauth: { github: false, google: false }, transport: 'outbox' },
            },
          }),
          ...commonErrors(),
        },
      },
    },
  },
};
