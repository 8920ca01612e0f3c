import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const MEMBER_ROLES = ['OWNER', 'ADMIN', 'MEMBER'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A user's membership of a project, with a role. */
@Entity('project_members')
export class ProjectMember {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  @PrimaryColumn({ type: 'uuid' }) userId: string;
  @Column({ type: 'text' }) role: MemberRole;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
