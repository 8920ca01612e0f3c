import type { EntityManager } from 'typeorm';
import { Template } from '../entities/template';
import { WorkflowStep, WorkflowTransition } from '../entities/workflow';

/** The writes of a workflow's graph (steps and transitions); reads are in workflows-queries.ts. */

/** One step of the workflow, or null. */
export function findStep(manager: EntityManager, workflowId: string, id: string): Promise<WorkflowStep | null> {
  return manager.findOneBy(WorkflowStep, { workflowId, id });
}

/** Stores a new step or the changes to a loaded one. */
export function saveStep(manager: EntityManager, step: Partial<WorkflowStep>): Promise<WorkflowStep> {
  return manager.save(manager.create(WorkflowStep, step));
}

/** Deletes a step; its transitions go with it (foreign keys). */
export async function deleteStep(manager: EntityManager, id: string): Promise<void> {
  await manager.delete(WorkflowStep, { id });
}

/** Stores a new transition. */
export function insertTransition(manager: EntityManager, transition: Partial<WorkflowTransition>): Promise<WorkflowTransition> {
  return manager.save(manager.create(WorkflowTransition, transition));
}

/** Stores several new transitions of a workflow at once. */
export async function insertTransitions(manager: EntityManager, transitions: Partial<WorkflowTransition>[]): Promise<void> {
  if (transitions.length > 0) await manager.insert(WorkflowTransition, transitions);
}

/** Deletes a transition of the workflow; false when it has no such transition. */
export async function deleteTransition(manager: EntityManager, workflowId: string, id: string): Promise<boolean> {
  return Boolean((await manager.delete(WorkflowTransition, { workflowId, id })).affected);
}

/** Whether the project has the template (a SEND_EMAIL step may only send its own). */
export function projectHasTemplate(manager: EntityManager, projectId: string, templateId: string): Promise<boolean> {
  return manager.existsBy(Template, { projectId, id: templateId });
}
