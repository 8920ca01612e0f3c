import { ApiKey } from './api-key';
import { BillingAccount, BillingLimits } from './billing';
import { Campaign } from './campaign';
import { Contact } from './contact';
import { ContactField } from './contact-field';
import { Domain } from './domain';
import { Email, EmailAttachment, EmailContent } from './email';
import { EventRecord } from './event-record';
import { Job, JobUpload } from './job';
import { AuthToken } from './auth-token';
import { OAuthAccount } from './oauth-account';
import { OutboxMessage } from './outbox-message';
import { Project } from './project';
import { ProjectInvite } from './project-invite';
import { ProjectMember } from './project-member';
import { ProjectSuspension } from './project-suspension';
import { Segment } from './segment';
import { Session } from './session';
import { Suppression } from './suppression';
import { Template } from './template';
import { Workflow, WorkflowExecution, WorkflowStep, WorkflowTransition } from './workflow';
import { User } from './user';
import { WebhookDelivery, WebhookEndpoint, WebhookEvent } from './webhook';

/** Every TypeORM entity Herald maps. */
export const entities = [
  User,
  Session,
  AuthToken,
  OAuthAccount,
  Project,
  ApiKey,
  ProjectMember,
  ProjectInvite,
  OutboxMessage,
  Contact,
  ContactField,
  EventRecord,
  Job,
  JobUpload,
  Domain,
  Template,
  Workflow,
  WorkflowExecution,
  WorkflowStep,
  WorkflowTransition,
  Email,
  EmailContent,
  EmailAttachment,
  Suppression,
  BillingLimits,
  BillingAccount,
  ProjectSuspension,
  Segment,
  Campaign,
  WebhookEndpoint,
  WebhookEvent,
  WebhookDelivery,
];

export {
  ApiKey,
  BillingAccount,
  BillingLimits,
  ProjectSuspension,
  Campaign,
  Segment,
  AuthToken,
  OAuthAccount,
  Contact,
  ContactField,
  Domain,
  Email,
  EmailAttachment,
  EmailContent,
  EventRecord,
  Job,
  JobUpload,
  Suppression,
  Template,
  Workflow,
  WorkflowExecution,
  WorkflowStep,
  WorkflowTransition,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  OutboxMessage, Project, ProjectInvite, ProjectMember, Session, User };

