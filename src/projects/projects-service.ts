import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { DomainsService } from '../domains/domains-service';
import { ApiKey } from '../entities/api-key';
import { Project } from '../entities/project';
import { ProjectMember, type MemberRole } from '../entities/project-member';
import { forbidden } from '../http/errors';
import { issueKeys, type IssuedKeys } from './api-keys';
import { requireManager } from './members-service';
import { cancelWorkflows, wipeProjectData } from './project-data';

/** A project as its members see it; the plain keys appear only right after they were issued. */
export function projectView(project: Project, role: MemberRole, prefixes: Record<string, string>, keys?: IssuedKeys) {
  return {
    id: project.id,
    name: project.name,
    ...(keys ?? {}),
    publicKeyPrefix: keys ? keys.publicKey.slice(0, 10) : prefixes.public,
    secretKeyPrefix: keys ? keys.secretKey.slice(0, 10) : prefixes.secret,
    disabled: project.disabled,
    disabledReason: project.disabledReason,
    role,
    createdAt: project.createdAt,
    updatedAt: project.updatedAt,
  };
}

/** Projects of a user: create, list, rename, delete, rotate keys and reset data. */
export class ProjectsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly temporal: Client | undefined,
    private readonly domains: DomainsService,
  ) {}

  private async prefixes(projectId: string): Promise<Record<string, string>> {
    const keys = await this.dataSource.getRepository(ApiKey).findBy({ projectId });
    return Object.fromEntries(keys.map((key) => [key.kind, key.prefix]));
  }

  /** Creates a project with its two keys; the creator becomes OWNER. */
  async create(userId: string, name: string) {
    return this.dataSource.transaction(async (manager) => {
      const project = manager.create(Project, { name: name.trim() });
      await manager.save(project);
      await manager.insert(ProjectMember, { projectId: project.id, userId, role: 'OWNER' });
      const keys = await issueKeys(manager, project.id);
      return projectView(project, 'OWNER', {}, keys);
    });
  }

  async list(userId: string) {
    const rows: { id: string; role: MemberRole }[] = await this.dataSource.query(
      `SELECT p.id, m.role FROM projects p JOIN project_members m ON m.project_id = p.id
        WHERE m.user_id = $1 ORDER BY p.created_at`,
      [userId],
    );
    return Promise.all(rows.map((row) => this.get(row.id, row.role)));
  }

  async get(projectId: string, role: MemberRole) {
    const project = await this.dataSource.getRepository(Project).findOneByOrFail({ id: projectId });
    return projectView(project, role, await this.prefixes(projectId));
  }

  async rename(projectId: string, role: MemberRole, name: string) {
    requireManager(role);
    await this.dataSource.getRepository(Project).update({ id: projectId }, { name: name.trim() });
    return this.get(projectId, role);
  }

  /**
   * Deletes the project (OWNER only) with its data: its domains first, with their SES identities (a
   * failure to reach SES is a 503 and keeps the project), then the rest, cancelling the Temporal
   * workflows of its work under way.
   */
  async delete(projectId: string, role: MemberRole): Promise<void> {
    if (role !== 'OWNER') throw forbidden('Only project owners may delete a project');
    await this.domains.removeAll(projectId);
    const running = await this.dataSource.transaction(async (manager) => {
      const ids = await wipeProjectData(manager, projectId);
      await manager.delete(Project, { id: projectId });
      return ids;
    });
    await cancelWorkflows(this.temporal, running);
  }

  /** Replaces both keys together; the old ones fail from this moment on. */
  async regenerateKeys(projectId: string, role: MemberRole) {
    requireManager(role);
    return this.dataSource.transaction(async (manager) => {
      const keys = await issueKeys(manager, projectId);
      const project = await manager.findOneByOrFail(Project, { id: projectId });
      return projectView(project, role, {}, keys);
    });
  }

  /**
   * Deletes the project's data (see PROJECT_DATA_TABLES) and cancels the Temporal workflows of its
   * campaigns, workflow executions and jobs under way; the project, its members, keys, domains and
   * suppression list stay.
   */
  async reset(projectId: string, role: MemberRole): Promise<void> {
    requireManager(role);
    const running = await this.dataSource.transaction((manager) => wipeProjectData(manager, projectId));
    await cancelWorkflows(this.temporal, running);
  }
}
