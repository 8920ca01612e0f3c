import { ApiKey } from './api-key';
import { Contact } from './contact';
import { ContactField } from './contact-field';
import { EventRecord } from './event-record';
import { Job, JobUpload } from './job';
import { AuthToken } from './auth-token';
import { OutboxMessage } from './outbox-message';
import { Project } from './project';
import { ProjectInvite } from './project-invite';
import { ProjectMember } from './project-member';
import { Session } from './session';
import { User } from './user';

/** Every TypeORM entity Herald maps. */
export const entities = [
  User,
  Session,
  AuthToken,
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
];

export { ApiKey, AuthToken, Contact, ContactField, EventRecord, Job, JobUpload, OutboxMessage, Project, ProjectInvite, ProjectMember, Session, User };

