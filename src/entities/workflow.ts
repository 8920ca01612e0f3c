import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const STEP_TYPES = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'] as const;
export type StepType = (typeof STEP_TYPES)[number];
export type Branch = 'yes' | 'no';
export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'CANCELLED', 'FAILED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** An automation: steps joined by transitions, started per contact by an event. */
@Entity('workflows')
export class Workflow {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text' }) triggerType: 'EVENT';
  @Column({ type: 'jsonb' }) triggerConfig: { eventName?: string };
  @Column({ type: 'boolean' }) enabled: boolean;
  @Column({ type: 'boolean' }) allowReentry: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** One step of a workflow's graph. */
@Entity('workflow_steps')
export class WorkflowStep {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) workflowId: string;
  @Column({ type: 'text' }) type: StepType;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'jsonb' }) config: Record<string, unknown>;
  @Column({ type: 'jsonb', nullable: true }) position: { x: number; y: number } | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}

/** An edge from one step to the next; `branch` from CONDITION (required) and WAIT_FOR_EVENT (optional). */
@Entity('workflow_transitions')
export class WorkflowTransition {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) workflowId: string;
  @Column({ type: 'uuid' }) fromStepId: string;
  @Column({ type: 'uuid' }) toStepId: string;
  @Column({ type: 'text', nullable: true }) branch: Branch | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
}

/** One contact's run through a workflow, mirrored from the Temporal workflow `wf-exec/<id>`. */
@Entity('workflow_executions')
export class WorkflowExecution {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column({ type: 'uuid' }) projectId: string;
  @Column({ type: 'uuid' }) workflowId: string;
  @Column({ type: 'uuid', nullable: true }) contactId: string | null;
  @Column({ type: 'text' }) status: ExecutionStatus;
  @Column({ type: 'uuid', nullable: true }) currentStepId: string | null;
  @Column({ type: 'jsonb' }) context: Record<string, unknown>;
  /** The stored event that started it, when a trigger did: one execution per workflow and event. */
  @Column({ type: 'uuid', nullable: true }) triggerEventId: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'timestamptz' }) startedAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
}
