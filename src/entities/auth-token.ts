import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type AuthTokenKind = 'VERIFY_EMAIL' | 'PASSWORD_RESET';

/** A single-use emailed token (email verification, password reset); only its hash is stored. */
@Entity('auth_tokens')
export class AuthToken {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) userId: string;
  @Column({ type: 'text' }) kind: AuthTokenKind;
  @Column({ type: 'text' }) tokenHash: string;
  @Column({ type: 'timestamptz' }) expiresAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) usedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
