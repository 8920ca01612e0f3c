import type { DataSource, EntityManager } from 'typeorm';
import { ApiKey } from '../entities/api-key';
import { Project } from '../entities/project';
import { ProjectMember, type MemberRole } from '../entities/project-member';

type Db = DataSource | EntityManager;

/** A project by id; throws when there is none. */
export function findProject(db: Db, projectId: string): Promise<Project> {
  return db.getRepository(Project).findOneByOrFail({ id: projectId });
}

/** The prefix of each of a project's keys, by kind (`public`, `secret`). */
export async function keyPrefixes(db: Db, projectId: string): Promise<Record<string, string>> {
  const keys = await db.getRepository(ApiKey).findBy({ projectId });
  return Object.fromEntries(keys.map((key) => [key.kind, key.prefix]));
}

/** Creates a project with its creator as OWNER. */
export async function insertProject(manager: EntityManager, name: string, ownerId: string): Promise<Project> {
  const project = manager.create(Project, { name });
  await manager.save(project);
  await manager.insert(ProjectMember, { projectId: project.id, userId: ownerId, role: 'OWNER' });
  return project;
}

/** The projects a user belongs to, oldest first, with their role in each. */
export function listMemberships(db: Db, userId: string): Promise<{ id: string; role: MemberRole }[]> {
  return db.query(
    `SELECT p.id, m.role FROM projects p JOIN project_members m ON m.project_id = p.id
      WHERE m.user_id = $1 ORDER BY p.created_at`,
    [userId],
  );
}

/** Renames a project. */
export async function renameProject(db: Db, projectId: string, name: string): Promise<void> {
  await db.getRepository(Project).update({ id: projectId }, { name });
}

/** Deletes the project row (its data first, see `wipeProjectData`). */
export async function deleteProject(manager: EntityManager, projectId: string): Promise<void> {
  await manager.delete(Project, { id: projectId });
}
