import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Condition } from '../conditions/condition';

export type SegmentType = 'DYNAMIC' | 'STATIC';

/** A group of contacts: a condition evaluated live (DYNAMIC) or a managed list (STATIC). */
@Entity('segments')
export class Segment {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) slug: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text' }) type: SegmentType;
  @Column({ type: 'jsonb', nullable: true }) condition: Condition | null;
  @Column({ type: 'boolean' }) trackMembership: boolean;
  @Column({ type: 'int' }) memberCount: number;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
