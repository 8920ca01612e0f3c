import type { DataSource, EntityManager } from 'typeorm';
import type { MemberRole } from '../entities/project-member';
import { forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import { findMemberRole } from './members-queries';

/** What a dashboard handler's context gives the role check: the members service, the path and the signed-in user. */
interface CallerContext {
  services: { members: { role(projectId: string, userId: string): Promise<MemberRole> } };
  params: Record<string, string>;
  user: { id: string };
}

/** A user's role in a project; 404 when not a member, so a project's existence is never revealed. */
export async function roleIn(db: DataSource | EntityManager, projectId: string, userId: string): Promise<MemberRole> {
  const role = isUuid(projectId) ? await findMemberRole(db, projectId, userId) : undefined;
  if (!role) throw notFound('Project');
  return role;
}

/** The signed-in caller's role in the project of the path's `{id}`: the check every project-scoped dashboard endpoint makes first. */
export function callerRole({ services, params, user }: CallerContext): Promise<MemberRole> {
  return services.members.role(params.id, user.id);
}

/** Refuses unless the role may manage the project (OWNER or ADMIN). */
export function requireManager(role: MemberRole): void {
  if (role !== 'OWNER' && role !== 'ADMIN') throw forbidden('Only project owners and admins may do this');
}
