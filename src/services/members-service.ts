import type { DataSource, EntityManager } from 'typeorm';
import { Project } from '../entities/project';
import { ProjectInvite } from '../entities/project-invite';
import { MEMBER_ROLES, ProjectMember, type MemberRole } from '../entities/project-member';
import { ApiError, conflict, forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import type { AccountEmails } from './account-emails';

/** Turns every pending invite for an email into a membership of the new user. */
export async function acceptInvites(manager: EntityManager, userId: string, email: string): Promise<void> {
  await manager.query(
    `WITH accepted AS (DELETE FROM project_invites WHERE lower(email) = lower($2) RETURNING project_id, role)
     INSERT INTO project_members (project_id, user_id, role)
     SELECT project_id, $1, role FROM accepted ON CONFLICT DO NOTHING`,
    [userId, email],
  );
}

/** The caller's role in a project; 404 when not a member, so a project's existence is never revealed. */
export async function roleIn(dataSource: DataSource, projectId: string, userId: string): Promise<MemberRole> {
  const member = isUuid(projectId)
    ? await dataSource.getRepository(ProjectMember).findOneBy({ projectId, userId })
    : null;
  if (!member) throw notFound('Project');
  return member.role;
}

/** Refuses unless the role may manage the project (OWNER or ADMIN). */
export function requireManager(role: MemberRole): void {
  if (role !== 'OWNER' && role !== 'ADMIN') throw forbidden('Only project owners and admins may do this');
}

interface MemberRow {
  user_id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
}

const memberView = (row: MemberRow) => ({ userId: row.user_id, email: row.email, role: row.role, createdAt: row.created_at });
const inviteView = (invite: ProjectInvite) => ({ id: invite.id, email: invite.email, role: invite.role, createdAt: invite.createdAt });

/** Project membership: listing, inviting, role changes and removal, keeping at least one OWNER. */
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly emails: AccountEmails,
  ) {}

  async list(projectId: string) {
    const members: MemberRow[] = await this.dataSource.query(
      `SELECT m.user_id, u.email, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
        WHERE m.project_id = $1 ORDER BY m.created_at, u.email`,
      [projectId],
    );
    const invites = await this.dataSource.getRepository(ProjectInvite).find({ where: { projectId }, order: { createdAt: 'ASC' } });
    return { members: members.map(memberView), invites: invites.map(inviteView) };
  }

  /** Adds an existing user as a member, or records an invite for an email without an account. */
  async add(projectId: string, actorRole: MemberRole, actorId: string, email: string, role: MemberRole) {
    requireManager(actorRole);
    if (role === 'OWNER' && actorRole !== 'OWNER') throw forbidden('Only owners may add another owner');
    const project = await this.dataSource.getRepository(Project).findOneByOrFail({ id: projectId });
    const result = await this.dataSource.transaction(async (manager) => {
      const [user]: { id: string; email: string }[] = await manager.query(
        'SELECT id, email FROM users WHERE lower(email) = lower($1)',
        [email],
      );
      if (user) {
        const inserted: MemberRow[] = await manager.query(
          `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
           ON CONFLICT DO NOTHING RETURNING user_id, $4::text AS email, role, created_at`,
          [projectId, user.id, role, user.email],
        );
        if (inserted.length === 0) throw conflict('This user is already a member of the project', 'ALREADY_MEMBER');
        return { member: memberView(inserted[0]) };
      }
      const rows: { id: string }[] = await manager.query(
        `INSERT INTO project_invites (project_id, email, role, invited_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (project_id, lower(email)) DO NOTHING RETURNING id`,
        [projectId, email.trim(), role, actorId],
      );
      if (rows.length === 0) throw conflict('This email is already invited to the project', 'ALREADY_INVITED');
      return { invite: inviteView(await manager.findOneByOrFail(ProjectInvite, { id: rows[0].id })) };
    });
    await this.emails.invitation(email, project.name);
    return result;
  }

  /** Changes a member's role; the last OWNER cannot be demoted. */
  async changeRole(projectId: string, actorRole: MemberRole, userId: string, role: MemberRole) {
    requireManager(actorRole);
    return this.dataSource.transaction(async (manager) => {
      const target = await this.lockedMember(manager, projectId, userId);
      if ((target.role === 'OWNER' || role === 'OWNER') && actorRole !== 'OWNER') {
        throw forbidden('Only owners may change who is an owner');
      }
      if (target.role === 'OWNER' && role !== 'OWNER') await this.keepAnOwner(manager, projectId);
      await manager.update(ProjectMember, { projectId, userId }, { role });
      const [row]: MemberRow[] = await manager.query(
        `SELECT m.user_id, u.email, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
          WHERE m.project_id = $1 AND m.user_id = $2`,
        [projectId, userId],
      );
      return memberView(row);
    });
  }

  /** Removes a member (managers remove anyone, members themselves); the last OWNER stays. */
  async remove(projectId: string, actorRole: MemberRole, actorId: string, userId: string): Promise<void> {
    if (actorId !== userId) requireManager(actorRole);
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedMember(manager, projectId, userId);
      if (target.role === 'OWNER' && actorRole !== 'OWNER') throw forbidden('Only owners may remove an owner');
      if (target.role === 'OWNER') await this.keepAnOwner(manager, projectId);
      await manager.delete(ProjectMember, { projectId, userId });
    });
  }

  /** Withdraws a pending invite. */
  async withdrawInvite(projectId: string, actorRole: MemberRole, inviteId: string): Promise<void> {
    requireManager(actorRole);
    const result = await this.dataSource.getRepository(ProjectInvite).delete({ projectId, id: inviteId });
    if (!result.affected) throw notFound('Invite');
  }

  private async lockedMember(manager: EntityManager, projectId: string, userId: string): Promise<ProjectMember> {
    // Lock every membership row of the project so two concurrent demotions cannot both pass the owner check.
    await manager.query('SELECT 1 FROM project_members WHERE project_id = $1 FOR UPDATE', [projectId]);
    const member = await manager.findOneBy(ProjectMember, { projectId, userId });
    if (!member) throw notFound('Member');
    return member;
  }

  private async keepAnOwner(manager: EntityManager, projectId: string): Promise<void> {
    const owners = await manager.countBy(ProjectMember, { projectId, role: 'OWNER' });
    if (owners <= 1) {
      throw new ApiError(409, 'LAST_OWNER', 'A project needs at least one owner', {
        suggestion: 'Make another member an OWNER first.',
      });
    }
  }
}

export { MEMBER_ROLES };
