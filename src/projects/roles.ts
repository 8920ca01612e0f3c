import type { DataSource, EntityManager } from 'typeorm';
import type { MemberRole } from '../entities/project-member';
import { forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import { findMemberRole } from './members-queries';

/** A user's role in a project; 404 when not a member, so a project's existence is never revealed. */
export async function roleIn(db: DataSource | EntityManager, projectId: string, userId: string): Promise<MemberRole> {
  const role = isUuid(projectId) ? await findMemberRole(db, projectId, userId) : undefined;
  if (!role) throw notFound('Project');
  return role;
}

/** Refuses unless the role may manage the project (OWNER or ADMIN). */
export function requireManager(role: MemberRole): void {
  if (role !== 'OWNER' && role !== 'ADMIN') throw forbidden('Only project owners and admins may do this');
}
