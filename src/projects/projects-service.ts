import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { DomainsService } from '../domains/domains-service';
import type { Project } from '../entities/project';
import type { MemberRole } from '../entities/project-member';
import { forbidden } from '../http/errors';
import { issueKeys, type IssuedKeys } from './api-keys';
import { forgetKeys } from './key-cache';
import * as queries from './projects-queries';
import { requireManager } from './roles';
import { setupState } from './setup-state';
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

  /** Creates a project with its two keys; the creator becomes OWNER. */
  async create(userId: string, name: string) {
    return this.dataSource.transaction(async (manager) => {
      const project = await queries.insertProject(manager, name.trim(), userId);
      const keys = await issueKeys(manager, project.id);
      return projectView(project, 'OWNER', {}, keys);
    });
  }

  /** Every project the user is a member of. */
  async list(userId: string) {
    const rows = await queries.listMemberships(this.dataSource, userId);
    return Promise.all(rows.map((row) => this.get(row.id, row.role)));
  }

  /** A project as a member with this role sees it. */
  async get(projectId: string, role: MemberRole) {
    const project = await queries.findProject(this.dataSource, projectId);
    return projectView(project, role, await queries.keyPrefixes(this.dataSource, projectId));
  }

  /** Renames the project (OWNER or ADMIN). */
  async rename(projectId: string, role: MemberRole, name: string) {
    requireManager(role);
    await queries.renameProject(this.dataSource, projectId, name.trim());
    forgetKeys(this.dataSource);
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
      await queries.deleteProject(manager, projectId);
      return ids;
    });
    forgetKeys(this.dataSource);
    await cancelWorkflows(this.temporal, running);
  }

  /** Replaces both keys together; the old ones fail from this moment on. */
  async regenerateKeys(projectId: string, role: MemberRole) {
    requireManager(role);
    const view = await this.dataSource.transaction(async (manager) => {
      const keys = await issueKeys(manager, projectId);
      const project = await queries.findProject(manager, projectId);
      return projectView(project, role, {}, keys);
    });
    // Other API processes forget the old keys when the change is announced; this one before it answers.
    forgetKeys(this.dataSource);
    return view;
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

  /** The project's onboarding checklist. */
  setupState(projectId: string) {
    return setupState(this.dataSource, projectId);
  }
}
