import { Router } from 'express';
import type { AppDeps } from '../composition';

/** Health and feature flags: the two endpoints that need no authentication. */
export function systemRouter(deps: AppDeps): Router {
  const router = Router();

  router.get('/health', async (_req, res) => {
    const database = await deps.dataSource.query('SELECT 1').then(() => 'up', () => 'down');
    const temporal = deps.temporal
      ? await deps.temporal.workflowService.getSystemInfo({}).then(() => 'up', () => 'down')
      : 'down';
    res.status(database === 'up' ? 200 : 503).json({ status: database === 'up' ? 'ok' : 'degraded', database, temporal });
  });

  router.get('/config', (_req, res) => {
    res.json({
      version: deps.config.version,
      features: {
        signups: !deps.config.disableSignups,
        billing: Boolean(deps.config.stripeSecretKey),
        oauth: { github: Boolean(deps.config.oauth.github), google: Boolean(deps.config.oauth.google) },
        transport: deps.config.transport,
      },
    });
  });

  return router;
}
