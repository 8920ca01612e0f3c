import type { DataSource, EntityManager } from 'typeorm';
import { Project } from '../entities/project';
import { ProjectInvite } from '../entities/project-invite';
import { MEMBER_ROLES, ProjectMember, type MemberRole } from '../entities/project-member';
import { ApiError, conflict, forbidden, notFound } from '../http/errors';
import { isUuid } from '../http/validate';
import type { AccountEmails } from '../accounts/account-emails';
import type { AuthThrottle } from '../accounts/auth-throttle';

/** Turns every pending invite for an email into a membership of the user, who must have verified that email. */
export async function acceptInvites(manager: EntityManager, userId: string, email: string): Promise<void> {
  await manager.query(
    `WITH accepted AS (DELETE FROM project_invites WHERE lower(email) = lower($2) RETURNING project_id, role)
     INSERT INTO project_members (project_id, user_id, role)
     SELECT project_id, $1, role FROM accepted ON CONFLICT DO NOTHING`,
    [userId, email],
  );
}

/**
 * Marks a user's email verified and honours the invites waiting for it. Two statements: the
 * second sees an invite that `add` committed while the first waited for the user's row lock.
 */
export async function verifyEmailAndJoin(manager: EntityManager, userId: string): Promise<void> {
  const [rows]: [{ email: string }[], number] = await manager.query(
    'UPDATE users SET email_verified = true, updated_at = now() WHERE id = $1 RETURNING email',
    [userId],
  );
  if (rows.length) await acceptInvites(manager, userId, rows[0].email);
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

interface InviteRow {
  id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
  /** The email has an account, not verified yet. */
  has_account: boolean;
}

const memberView = (row: MemberRow) => ({ userId: row.user_id, email: row.email, role: row.role, createdAt: row.created_at });
const inviteView = (row: InviteRow) => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  waitingFor: row.has_account ? ('VERIFICATION' as const) : ('SIGNUP' as const),
});

/** What the inviter is told about an invite that has not taken effect yet. */
function waitingMessage(invite: ReturnType<typeof inviteView>): string {
  return invite.waitingFor === 'VERIFICATION'
    ? `Invitation sent. ${invite.email} has an account whose email address is not verified yet; they become ${invite.role} once they verify it.`
    : `Invitation sent. ${invite.email} has no account yet; they become ${invite.role} once they sign up and verify their email address.`;
}

/** Project membership: listing, inviting, role changes and removal, keeping at least one OWNER. */
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly emails: AccountEmails,
    private readonly throttle: AuthThrottle,
  ) {}

  async list(projectId: string) {
    const members: MemberRow[] = await this.dataSource.query(
      `SELECT m.user_id, u.email, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
        WHERE m.project_id = $1 ORDER BY m.created_at, u.email`,
      [projectId],
    );
    const invites: InviteRow[] = await this.dataSource.query(
      `SELECT i.id, i.email, i.role, i.created_at, EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(i.email)) AS has_account
         FROM project_invites i WHERE i.project_id = $1 ORDER BY i.created_at`,
      [projectId],
    );
    return { members: members.map(memberView), invites: invites.map(inviteView) };
  }

  /**
   * Adds the user with this email when their email is verified; otherwise records an invite,
   * which takes effect when the address is verified (CONTRACT 15), and says so in `message`.
   * The email it sends counts towards the address's account emails: past the budget, 429 and
   * nothing is written.
   */
  async add(projectId: string, actorRole: MemberRole, actorId: string, email: string, role: MemberRole) {
    requireManager(actorRole);
    if (role === 'OWNER' && actorRole !== 'OWNER') throw forbidden('Only owners may add another owner');
    const project = await this.dataSource.getRepository(Project).findOneByOrFail({ id: projectId });
    const result = await this.dataSource.transaction(async (manager) => {
      const written = await this.memberOrInvite(manager, projectId, actorId, email, role);
      // Counted once the write stands (a 409 sends nothing); a refusal rolls the write back.
      await this.throttle.accountEmail(email);
      return written;
    });
    await this.emails.invitation(email, project.name, 'member' in result);
    return result;
  }

  private async memberOrInvite(manager: EntityManager, projectId: string, actorId: string, email: string, role: MemberRole) {
    // Locked so that a verification of this user commits either before (a member) or after (it sees the invite).
    const [user]: { id: string; email: string; email_verified: boolean }[] = await manager.query(
      'SELECT id, email, email_verified FROM users WHERE lower(email) = lower($1) FOR UPDATE',
      [email],
    );
    if (user?.email_verified) {
      const inserted: MemberRow[] = await manager.query(
        `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING user_id, $4::text AS email, role, created_at`,
        [projectId, user.id, role, user.email],
      );
      if (inserted.length === 0) throw conflict('This user is already a member of the project', 'ALREADY_MEMBER');
      return { member: memberView(inserted[0]) };
    }
    const rows: InviteRow[] = await manager.query(
      `INSERT INTO project_invites (project_id, email, role, invited_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, lower(email)) DO NOTHING RETURNING id, email, role, created_at, $5::boolean AS has_account`,
      [projectId, email.trim(), role, actorId, Boolean(user)],
    );
    if (rows.length === 0) throw conflict('This email is already invited to the project', 'ALREADY_INVITED');
    const invite = inviteView(rows[0]);
    return { invite, message: waitingMessage(invite) };
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
