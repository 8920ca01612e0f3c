import type { DataSource, EntityManager } from 'typeorm';
import type { MemberRole } from '../entities/project-member';
import { ApiError, conflict, forbidden, notFound } from '../http/errors';
import type { AccountEmails } from '../accounts/account-emails';
import { lockUserByEmail } from '../accounts/accounts-queries';
import type { AuthThrottle } from '../accounts/auth-throttle';
import * as queries from './members-queries';
import type { InviteRow, MemberRow } from './members-queries';
import { findProject } from './projects-queries';
import { requireManager, roleIn } from './roles';

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

/** Project membership: roles, listing, inviting, role changes and removal, keeping at least one OWNER. */
export class MembersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly emails: AccountEmails,
    private readonly throttle: AuthThrottle,
  ) {}

  /** A user's role in a project; 404 when not a member. */
  role(projectId: string, userId: string): Promise<MemberRole> {
    return roleIn(this.dataSource, projectId, userId);
  }

  /** The members and the pending invites. */
  async list(projectId: string) {
    const members = await queries.listMembers(this.dataSource, projectId);
    const invites = await queries.listInvites(this.dataSource, projectId);
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
    const project = await findProject(this.dataSource, projectId);
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
    const user = await lockUserByEmail(manager, email);
    if (user?.email_verified) {
      const inserted = await queries.insertMember(manager, projectId, user, role);
      if (!inserted) throw conflict('This user is already a member of the project', 'ALREADY_MEMBER');
      return { member: memberView(inserted) };
    }
    const row = await queries.insertInvite(manager, { projectId, email: email.trim(), role, invitedBy: actorId, hasAccount: Boolean(user) });
    if (!row) throw conflict('This email is already invited to the project', 'ALREADY_INVITED');
    const invite = inviteView(row);
    return { invite, message: waitingMessage(invite) };
  }

  /** Changes a member's role; the last OWNER cannot be demoted. */
  async changeRole(projectId: string, actorRole: MemberRole, userId: string, role: MemberRole) {
    requireManager(actorRole);
    return this.dataSource.transaction(async (manager) => {
      const target = await this.lockedMember(manager, projectId, userId);
      if ((target === 'OWNER' || role === 'OWNER') && actorRole !== 'OWNER') {
        throw forbidden('Only owners may change who is an owner');
      }
      if (target === 'OWNER' && role !== 'OWNER') await this.keepAnOwner(manager, projectId);
      await queries.setMemberRole(manager, projectId, userId, role);
      return memberView((await queries.findMemberRow(manager, projectId, userId))!);
    });
  }

  /** Removes a member (managers remove anyone, members themselves); the last OWNER stays. */
  async remove(projectId: string, actorRole: MemberRole, actorId: string, userId: string): Promise<void> {
    if (actorId !== userId) requireManager(actorRole);
    await this.dataSource.transaction(async (manager) => {
      const target = await this.lockedMember(manager, projectId, userId);
      if (target === 'OWNER' && actorRole !== 'OWNER') throw forbidden('Only owners may remove an owner');
      if (target === 'OWNER') await this.keepAnOwner(manager, projectId);
      await queries.deleteMember(manager, projectId, userId);
    });
  }

  /** Withdraws a pending invite. */
  async withdrawInvite(projectId: string, actorRole: MemberRole, inviteId: string): Promise<void> {
    requireManager(actorRole);
    if (!(await queries.deleteInvite(this.dataSource, projectId, inviteId))) throw notFound('Invite');
  }

  /** The role of a member, with every membership of the project locked; 404 when not a member. */
  private async lockedMember(manager: EntityManager, projectId: string, userId: string): Promise<MemberRole> {
    await queries.lockMembers(manager, projectId);
    const role = await queries.findMemberRole(manager, projectId, userId);
    if (!role) throw notFound('Member');
    return role;
  }

  private async keepAnOwner(manager: EntityManager, projectId: string): Promise<void> {
    if ((await queries.countOwners(manager, projectId)) <= 1) {
      throw new ApiError(409, 'LAST_OWNER', 'A project needs at least one owner', {
        suggestion: 'Make another member an OWNER first.',
      });
    }
  }
}
