import { isPlainObject } from '../contacts/data-rules';
import { EXECUTION_STATUSES, type ExecutionStatus } from '../entities/workflow';
import { endpoint, type RouteTable } from '../http/endpoint';
import { badRequest, validationError } from '../http/errors';
import { cursorPage, cursorParams } from '../http/pagination';
import { checkDto, uuidPathId } from '../http/validate';
import type { ExecutionStart } from './executions-service';
import * as docs from './workflows-docs';
import {
  AddWorkflowStepBody,
  AddWorkflowTransitionBody,
  CreateWorkflowBody,
  DeleteWorkflowStepQuery,
  StartWorkflowExecutionBody,
  UpdateWorkflowBody,
  UpdateWorkflowStepBody,
  Workflow,
  WorkflowExecution,
  WorkflowExecutionListQuery,
  WorkflowFieldsQuery,
  WorkflowStep,
  WorkflowTransition,
  WorkflowTrigger,
} from './workflows-dtos';
import type { ExecutionCursor } from './workflows-queries';
import type { TriggerConfig, WorkflowPatch } from './workflows-service';
import { executionView, stepView, transitionView, workflowView } from './views';

/** A step's `position` as stored: its `x` and `y` only (the DTO checked they are numbers), or null / absent. */
const positionOf = (position: { x: number; y: number } | null | undefined) => (position ? { x: position.x, y: position.y } : position);

const required = (field: string) => validationError([{ field, code: 'required', message: `${field} is required` }]);

/** A missing (or null) field answers 422 `<field> is required` before the other checks. */
const requireField = (field: string) => (body: unknown) => {
  const input = isPlainObject(body) ? body : {};
  if (input[field] === undefined || input[field] === null) throw required(field);
};

/** `triggerConfig` of a body: `{ eventName? }` (trimmed), null meaning none; undefined when not sent. */
function triggerConfigOf(value: object | null | undefined): TriggerConfig | undefined {
  if (value === undefined) return undefined;
  if (value === null) return {};
  const { value: trigger, errors } = checkDto(WorkflowTrigger, value, 'triggerConfig');
  // Answered without `received`, as this check always has.
  if (errors.length > 0) throw validationError(errors.map(({ field, code, message }) => ({ field, code, message })));
  return typeof trigger.eventName === 'string' ? { eventName: trigger.eventName.trim() } : {};
}

/** The fields of a workflow body; `enabled` is only taken on PATCH. */
function workflowInput(body: CreateWorkflowBody | UpdateWorkflowBody, partial: boolean): WorkflowPatch {
  return {
    name: body.name?.trim(),
    description: body.description,
    triggerConfig: triggerConfigOf(body.triggerConfig),
    allowReentry: body.allowReentry,
    enabled: partial ? body.enabled : undefined,
  };
}

/** Exactly one of `contactId` and `email`, then an object (or null, none) as `context`. */
function executionStart(body: StartWorkflowExecutionBody): ExecutionStart {
  if ((body.contactId === undefined) === (body.email === undefined)) {
    throw validationError([{ field: 'contactId', code: 'required', message: 'Give exactly one of contactId and email' }]);
  }
  if (body.context !== undefined && body.context !== null && !isPlainObject(body.context)) {
    throw validationError([{ field: 'context', code: 'invalid_type', message: 'context must be an object' }]);
  }
  return { contactId: body.contactId, email: body.email, context: body.context ?? undefined };
}

/** The `status` filter of an execution list; an unrecognised value is a 400. */
function statusOf(value: string | undefined): ExecutionStatus | undefined {
  if (value === undefined || value === '') return undefined;
  const status = EXECUTION_STATUSES.find((candidate) => candidate === value.trim().toUpperCase());
  if (!status) throw badRequest(`status must be one of ${EXECUTION_STATUSES.join(', ')}`, { details: { status: value } });
  return status;
}

const idOf = (what: string) => (id: string) => uuidPathId(id, what);
const workflowId = idOf('Workflow');
const stepId = idOf('Step');
const transitionId = idOf('Transition');
const executionId = idOf('Execution');

/** Workflows (`/workflows`): definitions, their graph of steps and transitions, and executions. */
export const workflowsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Workflow, WorkflowStep, WorkflowTransition, WorkflowExecution],
  endpoints: [
    endpoint({
      method: 'get',
      path: '/workflows',
      credential: 'secret',
      doc: docs.listWorkflows,
      handle: async ({ services, project }) => (await services.workflows.list(project.id)).map(({ workflow, graph }) => workflowView(workflow, graph)),
    }),
    endpoint<CreateWorkflowBody>({
      method: 'post',
      path: '/workflows',
      credential: 'secret',
      body: CreateWorkflowBody,
      precheck: requireField('name'),
      doc: docs.createWorkflow,
      handle: async ({ services, project, body }) => {
        const input = workflowInput(body, false);
        const created = await services.workflows.create(project.id, { ...input, name: input.name! });
        return workflowView(created.workflow, created.graph);
      },
    }),
    endpoint<undefined, WorkflowFieldsQuery>({
      method: 'get',
      path: '/workflows/fields',
      credential: 'secret',
      query: WorkflowFieldsQuery,
      doc: docs.listWorkflowFields,
      handle: ({ services, project, query }) => services.workflows.fields(project.id, query.eventName || undefined),
    }),
    endpoint({
      method: 'get',
      path: '/workflows/{id}',
      credential: 'secret',
      doc: docs.getWorkflow,
      handle: async ({ services, project, params }) => {
        const found = await services.workflows.get(project.id, workflowId(params.id));
        return workflowView(found.workflow, found.graph);
      },
    }),
    endpoint<UpdateWorkflowBody>({
      method: 'patch',
      path: '/workflows/{id}',
      credential: 'secret',
      body: UpdateWorkflowBody,
      doc: docs.updateWorkflow,
      handle: async ({ services, project, params, body }) => {
        const id = workflowId(params.id);
        const updated = await services.workflows.update(project.id, id, workflowInput(body, true));
        return workflowView(updated.workflow, updated.graph);
      },
    }),
    endpoint({
      method: 'delete',
      path: '/workflows/{id}',
      credential: 'secret',
      doc: docs.deleteWorkflow,
      handle: async ({ services, project, params }) => {
        await services.workflows.delete(project.id, workflowId(params.id));
        return { success: true };
      },
    }),
    endpoint<AddWorkflowStepBody>({
      method: 'post',
      path: '/workflows/{id}/steps',
      credential: 'secret',
      body: AddWorkflowStepBody,
      precheck: requireField('type'),
      doc: docs.addWorkflowStep,
      handle: async ({ services, project, params, body }) => {
        const input = { type: body.type, name: body.name?.trim(), config: body.config, position: positionOf(body.position) };
        return stepView(await services.workflowGraph.addStep(project.id, workflowId(params.id), input));
      },
    }),
    endpoint<UpdateWorkflowStepBody>({
      method: 'patch',
      path: '/workflows/{id}/steps/{stepId}',
      credential: 'secret',
      body: UpdateWorkflowStepBody,
      doc: docs.updateWorkflowStep,
      handle: async ({ services, project, params, body }) => {
        const patch = { name: body.name?.trim(), config: body.config, position: positionOf(body.position) };
        return stepView(await services.workflowGraph.updateStep(project.id, workflowId(params.id), stepId(params.stepId), patch));
      },
    }),
    endpoint<undefined, DeleteWorkflowStepQuery>({
      method: 'delete',
      path: '/workflows/{id}/steps/{stepId}',
      credential: 'secret',
      query: DeleteWorkflowStepQuery,
      doc: docs.deleteWorkflowStep,
      handle: async ({ services, project, params, query }) => {
        const splice = query.splice === 'true' || query.splice === '1';
        await services.workflowGraph.deleteStep(project.id, workflowId(params.id), stepId(params.stepId), splice);
        return { success: true };
      },
    }),
    endpoint<AddWorkflowTransitionBody>({
      method: 'post',
      path: '/workflows/{id}/transitions',
      credential: 'secret',
      body: AddWorkflowTransitionBody,
      doc: docs.addWorkflowTransition,
      handle: async ({ services, project, params, body }) => {
        const input = { fromStepId: body.fromStepId, toStepId: body.toStepId, branch: body.branch ?? null };
        return transitionView(await services.workflowGraph.addTransition(project.id, workflowId(params.id), input));
      },
    }),
    endpoint({
      method: 'delete',
      path: '/workflows/{id}/transitions/{transitionId}',
      credential: 'secret',
      doc: docs.deleteWorkflowTransition,
      handle: async ({ services, project, params }) => {
        await services.workflowGraph.deleteTransition(project.id, workflowId(params.id), transitionId(params.transitionId));
        return { success: true };
      },
    }),
    endpoint<StartWorkflowExecutionBody>({
      method: 'post',
      path: '/workflows/{id}/executions',
      credential: 'secret',
      body: StartWorkflowExecutionBody,
      doc: docs.startWorkflowExecution,
      handle: async ({ services, project, params, body }) => {
        const id = workflowId(params.id);
        return executionView(await services.executions.start(project.id, id, executionStart(body)));
      },
    }),
    endpoint<undefined, WorkflowExecutionListQuery>({
      method: 'get',
      path: '/workflows/{id}/executions',
      credential: 'secret',
      query: WorkflowExecutionListQuery,
      doc: docs.listWorkflowExecutions,
      handle: async ({ services, project, params, query, cursors }) => {
        const page = cursorParams(query, cursors.for<ExecutionCursor>('executions'));
        const { rows, countTotal } = await services.executions.list(project.id, workflowId(params.id), statusOf(query.status), page);
        const result = await cursorPage(rows, page, (row) => row.position, countTotal);
        return { ...result, data: result.data.map((row) => executionView(row.execution)) };
      },
    }),
    endpoint({
      method: 'post',
      path: '/workflows/{id}/executions/cancel-all',
      credential: 'secret',
      doc: docs.cancelAllWorkflowExecutions,
      handle: ({ services, project, params }) => services.executions.cancelAll(project.id, workflowId(params.id)),
    }),
    endpoint({
      method: 'get',
      path: '/workflows/{id}/executions/{executionId}',
      credential: 'secret',
      doc: docs.getWorkflowExecution,
      handle: async ({ services, project, params }) =>
        executionView(await services.executions.get(project.id, workflowId(params.id), executionId(params.executionId))),
    }),
    endpoint({
      method: 'delete',
      path: '/workflows/{id}/executions/{executionId}',
      credential: 'secret',
      doc: docs.cancelWorkflowExecution,
      handle: async ({ services, project, params }) => {
        const id = workflowId(params.id);
        return executionView(await services.executions.cancel(project.id, id, executionId(params.executionId)));
      },
    }),
  ],
};
