import { ApiKey } from './api-key';
import { AuthToken } from './auth-token';
import { OutboxMessage } from './outbox-message';
import { Project } from './project';
import { ProjectInvite } from './project-invite';
import { ProjectMember } from './project-member';
import { Session } from './session';
import { User } from './user';

/** Every TypeORM entity Herald maps. */
export const entities = [User, Session, AuthToken, Project, ApiKey, ProjectMember, ProjectInvite, OutboxMessage];

export { ApiKey, AuthToken, OutboxMessage, Project, ProjectInvite, ProjectMember, Session, User };

