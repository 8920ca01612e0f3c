import type { DataSource } from 'typeorm';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import { createMailer } from './mailer';
import type { Mailer } from './mailer/types';
import { registerSegmentTracking } from './segments/segment-tracking';
import { registerSegmentWebhooks } from './webhooks/segment-webhooks';
import { registerWorkflowTriggers } from './automations/triggers';
import { ActivityService } from './analytics/activity-service';
import { BillingLimitsService } from './billing/limits-service';
import { PaymentsService } from './billing/payments-service';
import { createStripeClient } from './billing/stripe-client';
import { CampaignSending } from './campaigns/campaign-sending';
import { CampaignsService } from './campaigns/campaigns-service';
import { ContactsService } from './contacts/contacts-service';
import { PreferencesService } from './contacts/preferences-service';
import { FieldsService } from './contacts/fields-service';
import { EventDispatcher } from './events/dispatcher';
import { createDomainsService } from './domains/domains-service';
import { EventsService } from './events/events-service';
import { JobsService } from './jobs/jobs-service';
import { confirmByGet, MailEventsService } from './mail-events/mail-events-service';
import { SnsSignatureVerifier } from './mail-events/sns-signature';
import { ReputationService } from './reputation/reputation-service';
import { SuspensionLifts } from './reputation/suspension-lifts';
import { SegmentsService } from './segments/segments-service';
import { SendService } from './sending/send-service';
import { SendQueueBell } from './sending/send-queue-bell';
import { EmailsService } from './emails/emails-service';
import { SystemService } from './system/system-service';
import { OutboxService } from './mailer/outbox-service';
import { SuppressionsService } from './suppressions/suppressions-service';
import { UploadsService } from './uploads/uploads-service';
import { TemplatesService } from './templates/templates-service';
import { EmailVerifier } from './verify/verifier';
import { ExecutionsService } from './automations/executions-service';
import { WorkflowGraphService } from './automations/graph-service';
import { WorkflowsService } from './automations/workflows-service';
import { AccountEmails } from './accounts/account-emails';
import { AuthService } from './accounts/auth-service';
import { OAuthService } from './oauth/oauth-service';
import { AuthThrottle } from './accounts/auth-throttle';
import { MembersService } from './projects/members-service';
import { ProjectsService } from './projects/projects-service';
import { WebhooksService } from './webhooks/webhooks-service';

/** What every Herald process shares, built once by `composeCore`: the API's services and the worker's activities start from it. */
export interface AppDeps {
  config: Config;
  dataSource: DataSource;
  mailer: Mailer;
  temporal: Client | undefined;
  dispatcher: EventDispatcher;
  /** Rung when emails are committed to the send queue; the send lanes of this process listen. */
  sendQueue: SendQueueBell;
}

/**
 * The composition root of every process (API, worker, `npm start`, tests): the mailer and the
 * event dispatcher, with the subscribers that follow committed writes registered once here
 * (tracked segments and their webhook events; workflow triggers and waiting executions, which need Temporal).
 */
export function composeCore(config: Config, dataSource: DataSource, temporal: Client | undefined): AppDeps {
  const dispatcher = new EventDispatcher();
  registerSegmentTracking(dispatcher, { dataSource });
  registerSegmentWebhooks(dispatcher, { dataSource });
  if (temporal) registerWorkflowTriggers(dispatcher, { dataSource, temporal, taskQueue: config.taskQueue });
  return { config, dataSource, mailer: createMailer(config, dataSource), temporal, dispatcher, sendQueue: new SendQueueBell() };
}

/** The services behind the routes, built once per app. */
export function createServices(deps: AppDeps) {
  const emails = new AccountEmails(deps.config, deps.mailer);
  const throttle = new AuthThrottle(deps.dataSource);
  const contacts = new ContactsService(deps.dataSource, deps.dispatcher);
  const fields = new FieldsService(deps.dataSource);
  const reputation = new ReputationService(deps.dataSource);
  const domains = createDomainsService(deps.config, deps.dataSource);
  return {
    contacts,
    fields,
    events: new EventsService(deps.dataSource, contacts),
    jobs: new JobsService(deps.dataSource, deps.temporal, deps.config.taskQueue),
    templates: new TemplatesService(deps.dataSource),
    campaigns: new CampaignsService(deps.dataSource),
    campaignSending: new CampaignSending(deps.dataSource, deps.temporal, deps.config.taskQueue),
    segments: new SegmentsService(deps.dataSource, contacts, deps.temporal, deps.config.taskQueue),
    system: new SystemService(deps),
    outbox: new OutboxService(deps.dataSource),
    send: new SendService(deps.dataSource, contacts, deps.temporal, deps.config.taskQueue, deps.sendQueue),
    emails: new EmailsService(deps.dataSource, deps.temporal),
    mailEvents: new MailEventsService(contacts, deps.config.mailEventsVerifySns ? new SnsSignatureVerifier() : undefined, confirmByGet, reputation),
    reputation,
    suspensionLifts: new SuspensionLifts(deps.dataSource, deps.config.adminEmails),
    suppressions: new SuppressionsService(deps.dataSource),
    preferences: new PreferencesService(deps.dataSource, deps.config, contacts),
    uploads: new UploadsService(deps.config),
    domains,
    auth: new AuthService(deps.dataSource, deps.config, emails, throttle),
    oauth: new OAuthService(deps.dataSource, deps.config),
    projects: new ProjectsService(deps.dataSource, deps.temporal, domains),
    payments: new PaymentsService(deps.dataSource, deps.config, createStripeClient(deps.config)),
    billingLimits: new BillingLimitsService(deps.dataSource),
    members: new MembersService(deps.dataSource, emails, throttle),
    activity: new ActivityService(deps.dataSource),
    workflows: new WorkflowsService(deps.dataSource, fields),
    workflowGraph: new WorkflowGraphService(deps.dataSource),
    executions: new ExecutionsService(deps.dataSource, deps.temporal, deps.config.taskQueue),
    webhooks: new WebhooksService(deps.dataSource, deps.config.webhookAllowPrivate),
    verifier: new EmailVerifier({
      dnsServers: deps.config.dnsServers,
      allowPrivateAddresses: deps.config.webhookAllowPrivate,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
