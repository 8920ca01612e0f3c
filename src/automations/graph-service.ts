import type { DataSource, EntityManager } from 'typeorm';
import { assertVerifiedSender } from '../domains/sender-check';
import type { Branch, StepType, Workflow, WorkflowStep, WorkflowTransition } from '../entities/workflow';
import { notFound, validationError } from '../http/errors';
import { splicedTransitions, transitionProblems } from './graph';
import { DEFAULT_STEP_NAMES, parseStepConfig, type StepConfig } from './step-config';
import * as graphQueries from './graph-queries';
import * as queries from './workflows-queries';

/** A step's position on the editor canvas. */
export type StepPosition = { x: number; y: number } | null;

/** A new step; `config` is checked against its type by the service. */
export interface StepInput {
  type: StepType;
  name?: string;
  config: unknown;
  position?: StepPosition;
}

/** The fields a step PATCH changes; its type is fixed. */
export interface StepPatch {
  name?: string;
  config?: unknown;
  position?: StepPosition;
}

/** A new transition. */
export interface TransitionInput {
  fromStepId: string;
  toStepId: string;
  branch: Branch | null;
}

/**
 * The graph of a workflow: steps and the transitions between them. Every edit locks the
 * workflow row, so concurrent edits cannot together break a rule (a cycle, a second branch).
 */
export class WorkflowGraphService {
  constructor(private readonly dataSource: DataSource) {}

  /** Adds a step after checking its config and what it refers to (template, sender domain). */
  async addStep(projectId: string, workflowId: string, input: StepInput): Promise<WorkflowStep> {
    const config = parseStepConfig(input.type, input.config);
    return this.edit(projectId, workflowId, async (manager, workflow) => {
      await checkReferences(manager, workflow.projectId, input.type, config);
      return graphQueries.saveStep(manager, {
        workflowId,
        type: input.type,
        name: input.name ?? DEFAULT_STEP_NAMES[input.type],
        config,
        position: input.position ?? null,
      });
    });
  }

  /** Changes a step's name, position or config (checked again against its type). */
  async updateStep(projectId: string, workflowId: string, stepId: string, patch: StepPatch): Promise<WorkflowStep> {
    return this.edit(projectId, workflowId, async (manager, workflow) => {
      const step = await findStep(manager, workflowId, stepId);
      if (patch.config !== undefined) {
        const config = parseStepConfig(step.type, patch.config);
        await checkReferences(manager, workflow.projectId, step.type, config);
        step.config = config;
      }
      if (patch.name !== undefined) step.name = patch.name;
      if (patch.position !== undefined) step.position = patch.position;
      return graphQueries.saveStep(manager, step);
    });
  }

  /**
   * Deletes a step with its transitions. With `splice`, each transition into the step is
   * reconnected, keeping its branch, to the step's next step; a step that leads to several
   * steps cannot be spliced out (422).
   */
  async deleteStep(projectId: string, workflowId: string, stepId: string, splice: boolean): Promise<void> {
    await this.edit(projectId, workflowId, async (manager) => {
      const step = await findStep(manager, workflowId, stepId);
      const { transitions } = await queries.graphOf(manager, workflowId);
      const replacements = splice ? splicedTransitions(step.id, transitions) : [];
      if (!replacements) {
        throw validationError(
          [{ field: 'splice', code: 'several_next_steps', message: `Step "${step.name}" leads to several steps; delete it without splice, then reconnect` }],
          'The step cannot be spliced out',
        );
      }
      await graphQueries.deleteStep(manager, step.id);
      await graphQueries.insertTransitions(manager, replacements.map((transition) => ({ workflowId, ...transition })));
    });
  }

  /** Adds a transition, refused (422) when it breaks a graph rule: see transitionProblems. */
  async addTransition(projectId: string, workflowId: string, input: TransitionInput): Promise<WorkflowTransition> {
    return this.edit(projectId, workflowId, async (manager) => {
      const { steps, transitions } = await queries.graphOf(manager, workflowId);
      const problems = transitionProblems(steps, transitions, input);
      if (problems.length > 0) throw validationError(problems, 'The transition is not allowed');
      return graphQueries.insertTransition(manager, { workflowId, ...input });
    });
  }

  /** Deletes a transition. */
  async deleteTransition(projectId: string, workflowId: string, transitionId: string): Promise<void> {
    await this.edit(projectId, workflowId, async (manager) => {
      if (!(await graphQueries.deleteTransition(manager, workflowId, transitionId))) throw notFound('Transition');
    });
  }

  /** Runs a graph edit in a transaction holding the workflow's lock, and marks the workflow changed. */
  private edit<T>(projectId: string, workflowId: string, work: (manager: EntityManager, workflow: Workflow) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      const workflow = await queries.findWorkflow(manager, projectId, workflowId, true);
      if (!workflow) throw notFound('Workflow');
      const result = await work(manager, workflow);
      await queries.touchWorkflow(manager, workflowId);
      return result;
    });
  }
}

async function findStep(manager: EntityManager, workflowId: string, stepId: string): Promise<WorkflowStep> {
  const step = await graphQueries.findStep(manager, workflowId, stepId);
  if (!step) throw notFound('Step');
  return step;
}

/** A SEND_EMAIL step sends a template of the project (422 otherwise) or from a verified domain (403 otherwise). */
async function checkReferences(manager: EntityManager, projectId: string, type: StepType, config: StepConfig): Promise<void> {
  if (type !== 'SEND_EMAIL') return;
  if (typeof config.templateId === 'string') {
    if (!(await graphQueries.projectHasTemplate(manager, projectId, config.templateId))) {
      throw validationError([{ field: 'config.templateId', code: 'not_found', message: 'templateId is not a template of this project', received: config.templateId }]);
    }
  } else {
    await assertVerifiedSender(manager, projectId, config.from as string);
  }
}
