import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type ApiKeyKind = 'public' | 'secret';

/** One of a project's two API keys; only the SHA-256 hash and a display prefix are stored. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) kind: ApiKeyKind;
  @Column({ type: 'text' }) keyHash: string;
  @Column({ type: 'text' }) prefix: string;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
