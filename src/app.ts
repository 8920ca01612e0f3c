import express, { type Express } from 'express';
import { Cursors } from './http/cursors';
import { errorHandler, unknownRoute } from './http/middleware/error-handler';
import { plainQuery } from './http/middleware/plain-query';
import { requestId } from './http/middleware/request-id';
import { accessLog } from './http/middleware/access-log';
import { docsRouter } from './openapi/docs-routes';
import { outboxRoutes } from './mailer/outbox-routes';
import { createServices, type AppDeps, type Services } from './composition';
import { mountRoutes } from './http/mount';
import { ROUTE_TABLES } from './route-tables';
import { WindowLimiter } from './rate-limits/window-limiter';

/**
 * Builds the Express app: shared middleware, the API reference, every feature's route table
 * (each endpoint behind the credential it states, authenticated before its body is read),
 * then the one error middleware; `services`: those the process already built, to share them (with the SMTP relay).
 */
export function createApp(deps: AppDeps, services: Services = createServices(deps)): Express {
  const { config, dataSource } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended');

  app.use(requestId);
  app.use(accessLog(app));
  app.use(plainQuery);
  const cursors = new Cursors(config.tokenSecret);
  const projectLimiter = new WindowLimiter(dataSource, config.rateLimitPerMinute);

  app.use(docsRouter({ version: config.version, publicUrl: config.publicUrl }));

  // The outbox is documented always, but served only while it is the transport.
  mountRoutes(app, ROUTE_TABLES.filter((table) => table !== outboxRoutes || config.transport === 'outbox'), { config, dataSource, services, cursors, projectLimiter });

  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}
