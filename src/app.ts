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
import { activityRouter } from './routes/activity';
import { apiKeyRouter } from './routes/api-key';
import { authRouter } from './routes/auth';
import { billingRouter } from './routes/billing';
import { billingLimitsRouter } from './routes/billing-limits';
import { campaignsRouter } from './routes/campaigns';
import { contactsRouter } from './routes/contacts';
import { eventsRouter, trackHandler } from './routes/events';
import { jobsRouter } from './routes/jobs';
import { mailEventsRouter } from './routes/mail-events';
import { oauthRouter } from './routes/oauth';
import { pagesRouter } from './routes/pages';
import { paymentsWebhookRouter } from './routes/payments-webhook';
import { securityRouter } from './routes/security';
import { segmentsRouter } from './routes/segments';
import { sendRouter } from './routes/send';
import { suppressionsRouter } from './routes/suppressions';
import { docsRouter } from './routes/docs';
import { domainsRouter } from './routes/domains';
import { outboxRouter } from './routes/outbox';
import { projectsRouter } from './routes/projects';
import { systemRouter } from './routes/system';
import { uploadsRouter } from './routes/uploads';
import { templatesRouter } from './routes/templates';
import { usersRouter } from './routes/users';
import { verifyRouter } from './routes/verify';
import { workflowsRouter } from './routes/workflows';
import { createServices, type AppDeps } from './services';

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
  app.use(['/v1/api-key', '/contacts', '/events', '/templates', '/activity', '/analytics', '/segments', '/workflows', '/suppressions'], keyed('secret'));
  app.use(apiKeyRouter());
  app.use(jobsRouter(services.jobs));
  app.use(contactsRouter(services.contacts, services.fields, cursors));
  app.use(suppressionsRouter(services.suppressions, cursors));
  app.use(eventsRouter(services.events, cursors));
  app.use(templatesRouter(services.templates));
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

  app.use(unknownRoute);
  app.use(errorHandler);
  return app;
}
