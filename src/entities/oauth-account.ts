import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

export const OAUTH_PROVIDERS = ['github', 'google'] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDERS)[number];

/** A provider identity (a GitHub or Google user) linked to the Herald user it signs in as. */
@Entity('oauth_accounts')
export class OAuthAccount {
  @PrimaryColumn({ type: 'text' }) provider: OAuthProviderId;
  @PrimaryColumn({ type: 'text' }) providerUserId: string;
  @Column({ type: 'uuid' }) userId: string;
  /** The verified email the provider last reported. */
  @Column({ type: 'text' }) email: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
