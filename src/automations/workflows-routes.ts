import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { Router } from 'express';
import { isPlainObject } from '../contacts/data-rules';
import { EXECUTION_STATUSES, STEP_TYPES, type Branch, type ExecutionStatus, type StepType } from '../entities/workflow';
import { badRequest, notFound, validationError } from '../http/errors';
import type { Cursors } from '../http/cursors';
import { cursorPage, cursorParams } from '../http/pagination';
import { isUuid, Optional, parseBody } from '../http/validate';
import type { ExecutionStart, ExecutionsService } from './executions-service';
import type { StepPosition, WorkflowGraphService } from './graph-service';
import { executionView, stepView, transitionView, workflowView } from './views';
import type { ExecutionCursor } from './workflows-queries';
import type { TriggerConfig, WorkflowPatch, WorkflowsService } from './workflows-service';

const nonBlank = { message: '$property must not be blank' };
const NOT_BLANK = /\S/;

class WorkflowFields {
  @Optional() @IsString() @Matches(NOT_BLANK, nonBlank) @MaxLength(255) name?: string;
  @IsOptional() @IsString() @MaxLength(2000) description?: string | null;
  @Optional() @IsIn(['EVENT'], { message: 'triggerType must be EVENT' }) triggerType?: 'EVENT';
  @Optional() @IsBoolean() enabled?: boolean;
  @Optional() @IsBoolean() allowReentry?: boolean;
}

class StepFields {
  @Optional() @IsIn(STEP_TYPES, { message: `type must be one of ${STEP_TYPES.join(', ')}` }) type?: StepType;
  @Optional() @IsString() @Matches(NOT_BLANK, nonBlank) @MaxLength(255) name?: string;
}

class TransitionBody {
  @IsUUID('all', { message: 'fromStepId must be a step id' }) fromStepId: string;
  @IsUUID('all', { message: 'toStepId must be a step id' }) toStepId: string;
  @IsOptional() @IsIn(['yes', 'no'], { message: 'branch must be yes or no' }) branch?: Branch | null;
}

class ExecutionBody {
  @Optional() @IsUUID('all', { message: 'contactId must be a contact id' }) contactId?: string;
  @Optional() @IsString() @MaxLength(320) email?: string;
}

const required = (field: string) => validationError([{ field, code: 'required', message: `${field} is required` }]);

/** `triggerConfig` of a body: `{ eventName? }`, null meaning none; undefined when not sent. */
function triggerConfigOf(value: unknown): TriggerConfig | undefined {
  if (value === undefined) return undefined;
  if (value !== null && !isPlainObject(value)) {
    throw validationError([{ field: 'triggerConfig', code: 'invalid_type', message: 'triggerConfig must be an object { eventName }' }]);
  }
  const eventName = value?.eventName;
  if (eventName === undefined || eventName === null) return {};
  if (typeof eventName !== 'string' || eventName.trim() === '' || eventName.length > 255) {
    throw validationError([{ field: 'triggerConfig.eventName', code: 'invalid_string', message: 'eventName must be a non-empty string of at most 255 characters' }]);
  }
  return { eventName: eventName.trim() };
}

/** Validates `POST /workflows` (`partial` false) and `PATCH /workflows/{id}`; `enabled` is only taken on PATCH. */
function workflowBody(body: unknown, partial: boolean): WorkflowPatch {
  const input = isPlainObject(body) ? body : {};
  if (!partial && (input.name === undefined || input.name === null)) throw required('name');
  const fields = parseBody(WorkflowFields, input);
  return {
    name: fields.name?.trim(),
    description: fields.description,
    triggerConfig: triggerConfigOf(input.triggerConfig),
    allowReentry: fields.allowReentry,
    enabled: partial ? fields.enabled : undefined,
  };
}

/** `position` of a step body: `{ x, y }` numbers or null; undefined when not sent. */
function positionOf(value: unknown): StepPosition | undefined {
  if (value === undefined || value === null) return value;
  if (!isPlainObject(value) || !Number.isFinite(value.x) || !Number.isFinite(value.y)) {
    throw validationError([{ field: 'position', code: 'invalid_type', message: 'position must be { x, y } with numbers, or null' }]);
  }
  return { x: value.x as number, y: value.y as number };
}

/** Validates `POST /workflows/{id}/executions`: exactly one of `contactId` and `email`, and an optional `context` object. */
function executionBody(body: unknown): ExecutionStart {
  const input = isPlainObject(body) ? body : {};
  const fields = parseBody(ExecutionBody, input);
  if ((fields.contactId === undefined) === (fields.email === undefined)) {
    throw validationError([{ field: 'contactId', code: 'required', message: 'Give exactly one of contactId and email' }]);
  }
  if (input.context !== undefined && input.context !== null && !isPlainObject(input.context)) {
    throw validationError([{ field: 'context', code: 'invalid_type', message: 'context must be an object' }]);
  }
  return { contactId: fields.contactId, email: fields.email, context: (input.context as Record<string, unknown> | null) ?? undefined };
}

/** The `status` filter of an execution list; an unrecognised value is a 400. */
function statusOf(value: unknown): ExecutionStatus | undefined {
  if (value === undefined || value === '') return undefined;
  const status = EXECUTION_STATUSES.find((candidate) => typeof value === 'string' && candidate === value.trim().toUpperCase());
  if (!status) throw badRequest(`status must be one of ${EXECUTION_STATUSES.join(', ')}`, { details: { status: value } });
  return status;
}

const idOf = (what: string) => (id: string) => {
  if (!isUuid(id)) throw notFound(what);
  return id;
};
const workflowId = idOf('Workflow');
const stepId = idOf('Step');
const transitionId = idOf('Transition');
const executionId = idOf('Execution');

/** Workflows (`/workflows`): definitions, their graph of steps and transitions, and executions. */
export function workflowsRouter(workflows: WorkflowsService, graph: WorkflowGraphService, executions: ExecutionsService, cursors: Cursors): Router {
  const router = Router();
  const executionCursors = cursors.for<ExecutionCursor>('executions');

  router.get('/workflows', async (req, res) => {
    res.json((await workflows.list(req.project!.id)).map(({ workflow, graph }) => workflowView(workflow, graph)));
  });

  router.get('/workflows/fields', async (req, res) => {
    const eventName = typeof req.query.eventName === 'string' && req.query.eventName !== '' ? req.query.eventName : undefined;
    res.json(await workflows.fields(req.project!.id, eventName));
  });

  router.post('/workflows', async (req, res) => {
    const input = workflowBody(req.body, false);
    const created = await workflows.create(req.project!.id, { ...input, name: input.name! });
    res.status(201).json(workflowView(created.workflow, created.graph));
  });

  router.get('/workflows/:id', async (req, res) => {
    const found = await workflows.get(req.project!.id, workflowId(req.params.id));
    res.json(workflowView(found.workflow, found.graph));
  });

  router.patch('/workflows/:id', async (req, res) => {
    const id = workflowId(req.params.id);
    const updated = await workflows.update(req.project!.id, id, workflowBody(req.body, true));
    res.json(workflowView(updated.workflow, updated.graph));
  });

  router.delete('/workflows/:id', async (req, res) => {
    await workflows.delete(req.project!.id, workflowId(req.params.id));
    res.json({ success: true });
  });

  router.post('/workflows/:id/steps', async (req, res) => {
    const id = workflowId(req.params.id);
    const input = isPlainObject(req.body) ? req.body : {};
    if (input.type === undefined || input.type === null) throw required('type');
    const fields = parseBody(StepFields, input);
    const step = await graph.addStep(req.project!.id, id, { type: fields.type!, name: fields.name?.trim(), config: input.config, position: positionOf(input.position) });
    res.status(201).json(stepView(step));
  });

  router.patch('/workflows/:id/steps/:stepId', async (req, res) => {
    const id = workflowId(req.params.id);
    const input = isPlainObject(req.body) ? req.body : {};
    const fields = parseBody(StepFields, { name: input.name });
    const patch = { name: fields.name?.trim(), config: input.config, position: positionOf(input.position) };
    res.json(stepView(await graph.updateStep(req.project!.id, id, stepId(req.params.stepId), patch)));
  });

  router.delete('/workflows/:id/steps/:stepId', async (req, res) => {
    const id = workflowId(req.params.id);
    const splice = req.query.splice === 'true' || req.query.splice === '1';
    await graph.deleteStep(req.project!.id, id, stepId(req.params.stepId), splice);
    res.json({ success: true });
  });

  router.post('/workflows/:id/transitions', async (req, res) => {
    const id = workflowId(req.params.id);
    const body = parseBody(TransitionBody, req.body);
    const transition = await graph.addTransition(req.project!.id, id, { fromStepId: body.fromStepId, toStepId: body.toStepId, branch: body.branch ?? null });
    res.status(201).json(transitionView(transition));
  });

  router.delete('/workflows/:id/transitions/:transitionId', async (req, res) => {
    await graph.deleteTransition(req.project!.id, workflowId(req.params.id), transitionId(req.params.transitionId));
    res.json({ success: true });
  });

  router.post('/workflows/:id/executions', async (req, res) => {
    const id = workflowId(req.params.id);
    res.status(201).json(executionView(await executions.start(req.project!.id, id, executionBody(req.body))));
  });

  router.get('/workflows/:id/executions', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const page = cursorParams(query, executionCursors);
    const { rows, countTotal } = await executions.list(req.project!.id, workflowId(req.params.id), statusOf(query.status), page);
    const result = await cursorPage(rows, page, (row) => row.position, countTotal);
    res.json({ ...result, data: result.data.map((row) => executionView(row.execution)) });
  });

  router.post('/workflows/:id/executions/cancel-all', async (req, res) => {
    res.json(await executions.cancelAll(req.project!.id, workflowId(req.params.id)));
  });

  router.get('/workflows/:id/executions/:executionId', async (req, res) => {
    res.json(executionView(await executions.get(req.project!.id, workflowId(req.params.id), executionId(req.params.executionId))));
  });

  router.delete('/workflows/:id/executions/:executionId', async (req, res) => {
    const id = workflowId(req.params.id);
    res.json(executionView(await executions.cancel(req.project!.id, id, executionId(req.params.executionId))));
  });

  return router;
}
