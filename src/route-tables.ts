import type { RouteTable } from './http/endpoint';
import { templatesRoutes } from './templates/templates-routes';
import { segmentsRoutes } from './segments/segments-routes';
import { campaignsRoutes } from './campaigns/campaigns-routes';
import { apiKeyRoutes } from './projects/api-key-routes';
import { authRoutes } from './accounts/auth-routes';
import { usersRoutes } from './accounts/users-routes';
import { projectsRoutes } from './projects/projects-routes';
import { securityRoutes } from './reputation/security-routes';
import { billingLimitsRoutes } from './billing/billing-limits-routes';
import { billingRoutes } from './billing/billing-routes';
import { contactsRoutes } from './contacts/contacts-routes';
import { suppressionsRoutes } from './suppressions/suppressions-routes';
import { jobsRoutes } from './jobs/jobs-routes';
import { activityRoutes } from './analytics/activity-routes';
import { domainsRoutes } from './domains/domains-routes';
import { verifyRoutes } from './verify/verify-routes';
import { uploadsRoutes } from './uploads/uploads-routes';
import { systemRoutes } from './system/system-routes';
import { trackRoutes, eventsRoutes } from './events/events-routes';
import { sendRoutes } from './sending/send-routes';
import { emailsRoutes } from './emails/emails-routes';
import { mailEventsRoutes } from './mail-events/mail-events-routes';
import { pagesRoutes } from './pages/pages-routes';
import { outboxRoutes } from './mailer/outbox-routes';
import { workflowsRoutes } from './automations/workflows-routes';
import { webhooksRoutes } from './webhooks/webhooks-routes';

/** Every feature's endpoints, in the order the API reference shows them. */
export const ROUTE_TABLES: RouteTable[] = [
  systemRoutes,
  apiKeyRoutes,
  trackRoutes,
  sendRoutes,
  emailsRoutes,
  verifyRoutes,
  contactsRoutes,
  suppressionsRoutes,
  jobsRoutes,
  eventsRoutes,
  templatesRoutes,
  segmentsRoutes,
  campaignsRoutes,
  workflowsRoutes,
  domainsRoutes,
  webhooksRoutes,
  activityRoutes,
  uploadsRoutes,
  mailEventsRoutes,
  pagesRoutes,
  authRoutes,
  usersRoutes,
  projectsRoutes,
  securityRoutes,
  billingLimitsRoutes,
  billingRoutes,
  outboxRoutes,
];
