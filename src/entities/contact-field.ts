import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { FieldType } from '../contacts/data-rules';

/** A custom `data` key of a project with the type inferred when it was first seen. */
@Entity('contact_fields')
export class ContactField {
  @PrimaryColumn({ type: 'uuid' }) projectId: string;
  @PrimaryColumn({ type: 'text' }) key: string;
  @Column({ type: 'text' }) type: FieldType;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}
