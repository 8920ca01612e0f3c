import type { Workflow, WorkflowExecution, WorkflowStep, WorkflowTransition } from '../entities/workflow';
import type { Graph } from './workflows-queries';

/** A step as the API shows it. */
export function stepView(step: WorkflowStep) {
  return { id: step.id, type: step.type, name: step.name, config: step.config, position: step.position };
}

/** A transition as the API shows it; `branch` is null when unlabelled. */
export function transitionView(transition: WorkflowTransition) {
  return { id: transition.id, fromStepId: transition.fromStepId, toStepId: transition.toStepId, branch: transition.branch };
}

/** A workflow as the API shows it, with its graph. */
export function workflowView(workflow: Workflow, graph: Graph) {
  return {
    id: workflow.id,
    name: workflow.name,
    description: workflow.description,
    triggerType: workflow.triggerType,
    triggerConfig: workflow.triggerConfig,
    enabled: workflow.enabled,
    allowReentry: workflow.allowReentry,
    steps: graph.steps.map(stepView),
    transitions: graph.transitions.map(transitionView),
    createdAt: workflow.createdAt,
    updatedAt: workflow.updatedAt,
  };
}

/** An execution as the API shows it; `error` says why a FAILED one failed (null otherwise). */
export function executionView(execution: WorkflowExecution) {
  return {
    id: execution.id,
    workflowId: execution.workflowId,
    contactId: execution.contactId,
    status: execution.status,
    currentStepId: execution.currentStepId,
    context: execution.context,
    error: execution.error,
    startedAt: execution.startedAt,
    completedAt: execution.completedAt,
  };
}
