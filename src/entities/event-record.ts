import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type EventSource = 'API' | 'SYSTEM';

/** A stored event: tracked through the API, or emitted by Herald itself (SYSTEM). */
@Entity('events')
export class EventRecord {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'uuid', nullable: true }) contactId: string | null;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb', default: {} }) data: Record<string, unknown>;
  @Column({ type: 'text' }) source: EventSource;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
