import cookieParser from 'cookie-parser';
import express, { type Express, type RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import { logger } from './logger';
import { Cursors } from './http/cursors';
import { jsonBody } from './http/json-body';
import { apiKeyAuth, type KeyRequirement } from './http/middleware/api-key-auth';
import { errorHandler, unknownRoute } from './http/middleware/error-handler';
import { idempotency } from './http/middleware/idempotency';
import { plainQuery } from './http/middleware/plain-query';
import { rateLimit } from './http/middleware/rate-limit';
import { requestId } from './http/middleware/request-id';
import { sessionAuth } from './http/middleware/session-auth';
import { activityRouter } from './analytics/activity-routes';
import { apiKeyRouter } from './projects/api-key-routes';
import { authRouter } from './accounts/auth-routes';
import { billingRouter } from './billing/billing-routes';
import { billingLimitsRouter } from './billing/billing-limits-routes';
import { campaignsRouter } from './campaigns/campaigns-routes';
import { contactsRouter } from './contacts/contacts-routes';
import { eventsRouter, trackHandler } from './events/events-routes';
import { jobsRouter } from './jobs/jobs-routes';
import { mailEventsRouter } from './mail-events/mail-events-routes';
import { oauthRouter } from './oauth/oauth-routes';
import { pagesRouter } from './pages/pages-routes';
import { paymentsWebhookRouter } from './billing/payments-webhook-routes';
import { securityRouter } from './reputation/security-routes';
import { segmentsRouter } from './segments/segments-routes';
import { sendRouter } from './sending/send-routes';
import { suppressionsRouter } from './suppressions/suppressions-routes';
import { docsRouter } from './openapi/docs-routes';
import { domainsRouter } from './domains/domains-routes';
import { outboxRouter } from './mailer/outbox-routes';
import { projectsRouter } from './projects/projects-routes';
import { systemRouter } from './system/system-routes';
import { uploadsRouter } from './uploads/uploads-routes';
import { usersRouter } from './accounts/users-routes';
import { verifyRouter } from './verify/verify-routes';
import { workflowsRouter } from './automations/workflows-routes';
import { createServices, type AppDeps } from './composition';
import { mountRoutes } from './http/mount';
import { ROUTE_TABLES } from './route-tables';

const SEND_BODY_LIMIT = '40mb';
const BODY_LIMIT = '1mb';

/**
 * Builds the Express app: shared middleware, every router, then the one error middleware.
 * Each group of routes authenticates (key or session) before it reads a body, with the
 * group's own limit, so a request with a bad key is refused without its body being read.
 */
export function createApp(deps: AppDeps): Express {
  const { config, dataSource } = deps;
  const services = createServices(deps);
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended');

  app.use(requestId);
  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => (req as express.Request).id,
      quietReqLogger: true,
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url.replace(/([?&](?:secret|code|state)=)[^&]*/g, '$1[redacted]') }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
    }),
  );
  app.use(cookieParser());
  app.use(plainQuery);
  const cursors = new Cursors(config.tokenSecret);

  /** Key authentication, the per-project rate limit and Idempotency-Key, in that order, then the JSON body. */
  const keyed = (requirement: KeyRequirement, bodyLimit = BODY_LIMIT): RequestHandler[] => [
    apiKeyAuth(dataSource, requirement),
    rateLimit(dataSource, config.rateLimitPerMinute),
    idempotency(dataSource, config.idempotencyTtlHours),
    ...jsonBody(bodyLimit),
  ];

  app.use(systemRouter(deps));
  app.use(docsRouter({ version: config.version, publicUrl: config.publicUrl }));
  if (config.transport === 'outbox') app.use(outboxRouter({ dataSource }));
  app.use('/auth', jsonBody(BODY_LIMIT));
  app.use(['/users/@me', '/projects'], sessionAuth(dataSource), ...jsonBody(BODY_LIMIT));
  app.use(authRouter(services, config, dataSource));
  app.use(oauthRouter(config, dataSource));
  app.use(usersRouter(services, dataSource));
  app.use(projectsRouter(services, dataSource));
  app.use(billingRouter(services, dataSource));
  app.use(securityRouter(services, dataSource));
  app.use(billingLimitsRouter(services, dataSource));
  app.use('/v1/track', keyed('any'));
  app.post('/v1/track', trackHandler(services.events));
  app.use(['/v1/api-key', '/contacts', '/events', '/activity', '/analytics', '/segments', '/workflows', '/suppressions'], keyed('secret'));
  app.use(apiKeyRouter());
  app.use(jobsRouter(services.jobs));
  app.use(contactsRouter(services.contacts, services.fields, cursors));
  app.use(suppressionsRouter(services.suppressions, cursors));
  app.use(eventsRouter(services.events, cursors));
  app.use('/campaigns', keyed('secret'));
  app.use(campaignsRouter(services.campaigns, services.campaignSending));
  app.use(segmentsRouter(services.segments));
  app.use(workflowsRouter(services.workflows, services.workflowGraph, services.executions, cursors));
  app.use(activityRouter(services.activity, cursors));
  app.use('/v1/send', keyed('secret', SEND_BODY_LIMIT));
  app.use(sendRouter(services.send));
  app.use('/domains', keyed('secret'));
  app.use(domainsRouter(services.domains));
  app.use('/v1/verify', keyed('secret'));
  app.use(verifyRouter(services.verifier));
  app.use(mailEventsRouter(services.mailEvents, config.mailEventsSecret));
  app.use('/webhooks/incoming/payments', express.raw({ type: '*/*', limit: BODY_LIMIT }));
  app.use(paymentsWebhookRouter(services.payments));
  app.use(pagesRouter(services.preferences));
  app.use('/uploads/image', keyed('secret'));
  app.use(uploadsRouter(services.uploads));

  mountRoutes(app, ROUTE_TABLES, { config, dataSource, services, cursors });

  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}
