import type { DataSource, EntityManager } from 'typeorm';
import { ProjectInvite } from '../entities/project-invite';
import { ProjectMember, type MemberRole } from '../entities/project-member';

type Db = DataSource | EntityManager;

/** A membership with its user's email, as the members queries answer it. */
export interface MemberRow {
  user_id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
}

/** A pending invite, as the members queries answer it. */
export interface InviteRow {
  id: string;
  email: string;
  role: MemberRole;
  created_at: Date;
  /** The email has an account, not verified yet. */
  has_account: boolean;
}

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

/** A user's role in a project, if they are a member. */
export async function findMemberRole(db: Db, projectId: string, userId: string): Promise<MemberRole | undefined> {
  return (await db.getRepository(ProjectMember).findOneBy({ projectId, userId }))?.role;
}

/** A project's members with their emails, oldest first. */
export function listMembers(db: Db, projectId: string): Promise<MemberRow[]> {
  return db.query(
    `SELECT m.user_id, u.email, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
      WHERE m.project_id = $1 ORDER BY m.created_at, u.email`,
    [projectId],
  );
}

/** One member with their email. */
export async function findMemberRow(db: Db, projectId: string, userId: string): Promise<MemberRow | undefined> {
  const [row]: MemberRow[] = await db.query(
    `SELECT m.user_id, u.email, m.role, m.created_at FROM project_members m JOIN users u ON u.id = m.user_id
      WHERE m.project_id = $1 AND m.user_id = $2`,
    [projectId, userId],
  );
  return row;
}

/** A project's pending invites, oldest first, each saying whether its email has an account. */
export function listInvites(db: Db, projectId: string): Promise<InviteRow[]> {
  return db.query(
    `SELECT i.id, i.email, i.role, i.created_at, EXISTS (SELECT 1 FROM users u WHERE lower(u.email) = lower(i.email)) AS has_account
       FROM project_invites i WHERE i.project_id = $1 ORDER BY i.created_at`,
    [projectId],
  );
}

/** Adds a member; undefined when they already are one. */
export async function insertMember(manager: EntityManager, projectId: string, user: { id: string; email: string }, role: MemberRole): Promise<MemberRow | undefined> {
  const inserted: MemberRow[] = await manager.query(
    `INSERT INTO project_members (project_id, user_id, role) VALUES ($1, $2, $3)
     ON CONFLICT DO NOTHING RETURNING user_id, $4::text AS email, role, created_at`,
    [projectId, user.id, role, user.email],
  );
  return inserted[0];
}

/** Records an invite; undefined when the email is already invited. */
export async function insertInvite(
  manager: EntityManager,
  invite: { projectId: string; email: string; role: MemberRole; invitedBy: string; hasAccount: boolean },
): Promise<InviteRow | undefined> {
  const rows: InviteRow[] = await manager.query(
    `INSERT INTO project_invites (project_id, email, role, invited_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, lower(email)) DO NOTHING RETURNING id, email, role, created_at, $5::boolean AS has_account`,
    [invite.projectId, invite.email, invite.role, invite.invitedBy, invite.hasAccount],
  );
  return rows[0];
}

/** Locks every membership row of a project, so two concurrent demotions cannot both pass the owner check. */
export async function lockMembers(manager: EntityManager, projectId: string): Promise<void> {
  await manager.query('SELECT 1 FROM project_members WHERE project_id = $1 FOR UPDATE', [projectId]);
}

/** Changes a member's role. */
export async function setMemberRole(manager: EntityManager, projectId: string, userId: string, role: MemberRole): Promise<void> {
  await manager.update(ProjectMember, { projectId, userId }, { role });
}

/** Removes a member. */
export async function deleteMember(manager: EntityManager, projectId: string, userId: string): Promise<void> {
  await manager.delete(ProjectMember, { projectId, userId });
}

/** How many OWNERs a project has. */
export function countOwners(manager: EntityManager, projectId: string): Promise<number> {
  return manager.countBy(ProjectMember, { projectId, role: 'OWNER' });
}

/** Deletes a pending invite; false when the project has no such invite. */
export async function deleteInvite(db: Db, projectId: string, inviteId: string): Promise<boolean> {
  const result = await db.getRepository(ProjectInvite).delete({ projectId, id: inviteId });
  return Boolean(result.affected);
}
