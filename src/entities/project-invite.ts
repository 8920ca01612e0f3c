import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { MemberRole } from './project-member';

/** An invitation for an email that has no account yet; honoured when that email signs up. */
@Entity('project_invites')
export class ProjectInvite {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text' }) role: MemberRole;
  @Column({ type: 'uuid', nullable: true }) invitedBy: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
