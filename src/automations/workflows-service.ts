import type { DataSource } from 'typeorm';
import type { FieldsService } from '../contacts/fields-service';
import type { Workflow } from '../entities/workflow';
import { conflict, notFound, validationError, type FieldError } from '../http/errors';
import { graphProblems } from './graph';
import * as queries from './workflows-queries';
import type { Graph } from './workflows-queries';

/** The trigger of a workflow: the event that starts an execution for its contact. */
export interface TriggerConfig {
  eventName?: string;
}

/** A new workflow, validated at the edge. */
export interface WorkflowInput {
  name: string;
  description?: string | null;
  triggerConfig?: TriggerConfig;
  allowReentry?: boolean;
}

/** The fields a PATCH changes. */
export interface WorkflowPatch extends Partial<WorkflowInput> {
  enabled?: boolean;
}

/** A workflow with its graph. */
export interface WorkflowWithGraph {
  workflow: Workflow;
  graph: Graph;
}

/** How many recent events of each trigger name `GET /workflows/fields` reads for `event.data.<key>` hints. */
const EVENT_SAMPLE = 200;

/** Why a workflow cannot be enabled: a missing trigger event, or a graph that cannot run. */
export function enableProblems(workflow: Workflow, graph: Graph): FieldError[] {
  const trigger: FieldError[] = workflow.triggerConfig.eventName
    ? []
    : [{ field: 'triggerConfig.eventName', code: 'required', message: 'An enabled workflow needs triggerConfig.eventName: the event that starts it' }];
  return [...trigger, ...graphProblems(graph.steps, graph.transitions)];
}

/** Workflow definitions of a project: the record, enabling and deletion. Graph edits are in WorkflowGraphService. */
export class WorkflowsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contactFields: FieldsService,
  ) {}

  /** Every workflow of the project with its graph, newest first. */
  async list(projectId: string): Promise<WorkflowWithGraph[]> {
    const workflows = await queries.listWorkflows(this.dataSource.manager, projectId);
    const graphs = await queries.graphsOf(this.dataSource.manager, workflows.map((workflow) => workflow.id));
    return workflows.map((workflow) => ({ workflow, graph: graphs.get(workflow.id)! }));
  }

  /** One workflow of the project with its graph; 404 otherwise. */
  async get(projectId: string, id: string): Promise<WorkflowWithGraph> {
    const workflow = await queries.findWorkflow(this.dataSource.manager, projectId, id);
    if (!workflow) throw notFound('Workflow');
    return { workflow, graph: await queries.graphOf(this.dataSource.manager, id) };
  }

  /** Creates a workflow, disabled and without steps, triggered by an event. */
  async create(projectId: string, input: WorkflowInput): Promise<WorkflowWithGraph> {
    const workflow = await queries.saveWorkflow(this.dataSource.manager, {
      projectId,
      name: input.name,
      description: input.description ?? null,
      triggerType: 'EVENT',
      triggerConfig: input.triggerConfig ?? {},
      enabled: false,
      allowReentry: input.allowReentry ?? false,
    });
    return { workflow, graph: { steps: [], transitions: [] } };
  }

  /**
   * Changes the fields given. Enabling, or changing the trigger of an enabled workflow, checks
   * that it can run (422 listing every problem). Disabling stops new executions; running ones go on.
   */
  async update(projectId: string, id: string, patch: WorkflowPatch): Promise<WorkflowWithGraph> {
    return this.dataSource.transaction(async (manager) => {
      const workflow = await queries.findWorkflow(manager, projectId, id, true);
      if (!workflow) throw notFound('Workflow');
      if (patch.name !== undefined) workflow.name = patch.name;
      if (patch.description !== undefined) workflow.description = patch.description;
      if (patch.triggerConfig !== undefined) workflow.triggerConfig = patch.triggerConfig;
      if (patch.allowReentry !== undefined) workflow.allowReentry = patch.allowReentry;
      if (patch.enabled !== undefined) workflow.enabled = patch.enabled;
      const graph = await queries.graphOf(manager, id);
      if (workflow.enabled && (patch.enabled === true || patch.triggerConfig !== undefined)) {
        const problems = enableProblems(workflow, graph);
        if (problems.length > 0) throw validationError(problems, 'The workflow cannot be enabled');
      }
      return { workflow: await queries.saveWorkflow(manager, workflow), graph };
    });
  }

  /** Deletes a workflow with its graph and finished executions; 409 WORKFLOW_ACTIVE while executions run or wait. */
  async delete(projectId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const workflow = await queries.findWorkflow(manager, projectId, id, true);
      if (!workflow) throw notFound('Workflow');
      const active = await queries.countActiveExecutions(manager, id);
      if (active > 0) {
        throw conflict(
          `The workflow has ${active} running or waiting execution(s); cancel them (POST /workflows/${id}/executions/cancel-all) or let them finish first`,
          'WORKFLOW_ACTIVE',
          { workflowId: id, activeExecutions: active },
        );
      }
      await queries.deleteWorkflow(manager, id);
    });
  }

  /**
   * The fields a CONDITION step can filter on: the contact fields (as `/contacts/fields` lists
   * them) and `event.data.<key>` of the triggering event, seen on recent events of `eventName`
   * or, without it, of every trigger event of the project's workflows.
   */
  async fields(projectId: string, eventName: string | undefined) {
    const names = eventName ? [eventName] : await queries.triggerEventNames(this.dataSource.manager, projectId);
    const [contact, keys] = await Promise.all([
      this.contactFields.list(projectId),
      queries.eventDataKeys(this.dataSource.manager, projectId, names, EVENT_SAMPLE),
    ]);
    return { contact: contact.fields, event: keys.map((key) => ({ field: `event.data.${key.key}`, type: key.type })) };
  }
}
