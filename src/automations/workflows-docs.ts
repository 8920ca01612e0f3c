import { errorExample, errorResponse, jsonResponse, pathParam, schemaRef } from '../openapi/builders';
import { cursorPageOf } from '../openapi/operations';
import type { EndpointDoc, Response, Tag } from '../openapi/types';
import { CancelledExecutions, Workflow, WorkflowConditionFields, WorkflowExecution, WorkflowStep, WorkflowTransition } from './workflows-dtos';

const GRAPH_RULES = [
  '**Graph rules.** The entry step is the one no transition enters. A transition is refused (422) when it leads from a ' +
    'step to itself, leaves an `EXIT` step, closes a cycle, lacks `branch` from a `CONDITION` step, carries a `branch` ' +
    'from a step other than `CONDITION` or `WAIT_FOR_EVENT`, or repeats a branch (or a second unlabelled transition) of its step. ' +
    'Enabling a workflow, and starting an execution by hand, check the whole graph: exactly one entry step, no cycle, ' +
    'every `CONDITION` step with both `yes` and `no` (and, to enable, `triggerConfig.eventName`). A branch of a ' +
    '`WAIT_FOR_EVENT` step without a transition ends the execution as `COMPLETED`.',
  '',
  '**Triggers.** Every stored event with a contact (tracked, `contact.*`, `segment.<slug>.entry|exit`, `email.*`) starts ' +
    'one execution in each enabled workflow whose `triggerConfig.eventName` is its name, and resumes that contact\'s ' +
    '`WAIT_FOR_EVENT` steps waiting for it. A contact never has two active executions of one workflow: a trigger while ' +
    'one runs is dropped. With `allowReentry: false` (default) a contact enters a workflow once, ever. An enabled ' +
    'workflow whose graph was edited into a shape that cannot run starts nothing until it is fixed. Graph edits do not ' +
    'change executions already under way: each follows the graph as it was when it started.',
].join('\n');

const STEP_CONFIGS = [
  'Step `config` by `type` (unknown keys are dropped; a bad config answers 422 naming `config.<key>`):',
  '',
  '- `SEND_EMAIL`: `{ templateId }` (a template of the project), or inline `{ subject, body, from, fromName?, replyTo?, type? }` ' +
    '(Liquid checked at save time; `from` on a verified domain, else 403; `type` `MARKETING` by default). A MARKETING email ' +
    'is skipped for unsubscribed contacts, and the skip is recorded in the execution `context.skipped`.',
  '- `DELAY`: `{ amount, unit }`, `amount` greater than 0, `unit` one of `seconds`, `minutes`, `hours`, `days`, `weeks`; at most ten years.',
  '- `WAIT_FOR_EVENT`: `{ eventName, timeout?: { amount, unit } }`. Its transitions: `yes` (the event arrived), `no` ' +
    '(timed out) and one unlabelled transition, taken when the outcome has no transition of its own; each optional.',
  '- `CONDITION`: `{ condition }`, a segment condition tree; `event.data.<key>` reads the triggering event. Needs a `yes` ' +
    'and a `no` transition.',
  '- `WEBHOOK`: `{ url (http or https), method? (POST default; GET, POST, PUT, PATCH, DELETE), headers? (string values), body? }`. ' +
    'Without `body` it sends `{ event, contact, workflow, execution }` as JSON; a `body` is rendered as a template. ' +
    'Requests time out after 10 s and are retried; private and loopback addresses (also wrapped in an IPv6 address: IPv4-mapped or ' +
    '-compatible, NAT64, 6to4, Teredo) are refused unless `WEBHOOK_ALLOW_PRIVATE=true`.',
  '- `UPDATE_CONTACT`: `{ data?, subscribed? }`, at least one; `data` follows the contact data rules.',
  '- `EXIT`: `{}`; ends the execution as `EXITED`.',
].join('\n');

export const tag: Tag = {
  name: 'Workflows',
  description:
    'Automations: a graph of steps joined by transitions, run once per contact as an execution (the Temporal ' +
    'workflow `wf-exec/<executionId>`, which can also be inspected and cancelled in the Temporal UI). A workflow is ' +
    `created disabled. Secret key.\n\n${GRAPH_RULES}\n\n${STEP_CONFIGS}`,
};

const stepIds = ['6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', '7b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e'];
const exampleStep = { id: stepIds[0], type: 'SEND_EMAIL', name: 'Welcome', config: { templateId: '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d' }, position: { x: 0, y: 0 } };
const exampleTransition = { id: '9d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a', fromStepId: stepIds[0], toStepId: stepIds[1], branch: null };
const exampleWorkflow = {
  id: '3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b',
  name: 'Welcome series',
  description: 'Greets new sign-ups',
  triggerType: 'EVENT',
  triggerConfig: { eventName: 'signed_up' },
  enabled: true,
  allowReentry: false,
  steps: [exampleStep, { id: stepIds[1], type: 'EXIT', name: 'Exit', config: {}, position: null }],
  transitions: [exampleTransition],
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};
const exampleExecution = {
  id: '1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b',
  workflowId: exampleWorkflow.id,
  contactId: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  status: 'WAITING',
  currentStepId: stepIds[0],
  context: {},
  error: null,
  startedAt: '2025-01-03T10:00:00.000Z',
  completedAt: null,
};

const workflowId = pathParam('id', 'The workflow.');
const withWorkflow = (...more: ReturnType<typeof pathParam>[]) => [workflowId, ...more];
const deleted = { description: 'Deleted.', shape: schemaRef('Success'), example: { success: true } };

const invalid = (what: string, example: { field: string; code: string; message: string }): Response =>
  jsonResponse(`${what} (\`VALIDATION_ERROR\`; each problem in \`error.errors\`).`, schemaRef('ErrorResponse'), {
    example: errorExample(422, 'VALIDATION_ERROR', what, { errors: [example] }),
  });
const unverifiedSender = errorResponse(403, 'INTERNAL_SERVER_ERROR', 'The `from` domain of an inline SEND_EMAIL step is not verified for the project');
const unavailable = errorResponse(503, 'SERVICE_UNAVAILABLE', 'Temporal is not reachable');

export const listWorkflows: EndpointDoc = {
  operationId: 'listWorkflows',
  summary: 'List workflows',
  description: 'Every workflow of the project with its steps and transitions, newest first; a bare array, not paginated.',
  response: { description: 'The workflows.', shape: { type: 'array', items: schemaRef('Workflow') } },
};

export const listWorkflowFields: EndpointDoc = {
  operationId: 'listWorkflowFields',
  summary: 'List the fields CONDITION steps can use',
  description:
    '`contact`: the contact fields as `GET /contacts/fields` lists them. `event`: `event.data.<key>` of the ' +
    'triggering event, with the JSON type seen most, from the latest 200 events of `eventName` (default: every ' +
    "trigger event of the project's workflows).",
  response: {
    description: 'The fields.',
    shape: WorkflowConditionFields,
    example: { contact: [{ field: 'data.plan', type: 'string', isCustom: true, coverage: 0.8 }], event: [{ field: 'event.data.amount', type: 'number' }] },
  },
};

export const createWorkflow: EndpointDoc = {
  operationId: 'createWorkflow',
  summary: 'Create a workflow',
  description: 'Created with `triggerType: EVENT`, `enabled: false` and no steps.',
  response: { status: 201, description: 'The new workflow.', shape: Workflow, example: { ...exampleWorkflow, enabled: false, steps: [], transitions: [] } },
};

export const getWorkflow: EndpointDoc = {
  operationId: 'getWorkflow',
  summary: 'Get a workflow',
  parameters: [workflowId],
  response: { description: 'The workflow with its graph.', shape: Workflow, example: exampleWorkflow },
};

export const updateWorkflow: EndpointDoc = {
  operationId: 'updateWorkflow',
  summary: 'Update a workflow',
  description:
    'Changes the fields sent. `enabled: true` (or a new trigger on an enabled workflow) checks the trigger and the ' +
    'graph (see the tag description) and answers 422 listing every problem. Disabling stops new executions; those ' +
    'under way go on.',
  parameters: [workflowId],
  response: { description: 'The updated workflow.', shape: Workflow },
  errors: { '422': invalid('The workflow cannot be enabled', { field: 'steps', code: 'entry_step', message: 'The workflow has 2 entry steps …' }) },
};

export const deleteWorkflow: EndpointDoc = {
  operationId: 'deleteWorkflow',
  summary: 'Delete a workflow',
  description: 'Deletes the workflow, its graph and its finished executions. Refused while executions run or wait: cancel them first.',
  parameters: [workflowId],
  response: deleted,
  errors: { '409': errorResponse(409, 'WORKFLOW_ACTIVE', 'Executions of the workflow are RUNNING or WAITING') },
};

export const addWorkflowStep: EndpointDoc = {
  operationId: 'addWorkflowStep',
  summary: 'Add a step',
  description: 'The step is not connected; add transitions to place it in the graph.',
  parameters: [workflowId],
  response: { status: 201, description: 'The new step.', shape: WorkflowStep, example: exampleStep },
  errors: {
    '403': unverifiedSender,
    '422': invalid('The step config is not valid', { field: 'config.unit', code: 'invalid_enum_value', message: 'unit is one of seconds, …' }),
  },
};

export const updateWorkflowStep: EndpointDoc = {
  operationId: 'updateWorkflowStep',
  summary: 'Update a step',
  description: 'Changes `name`, `position` or `config` (checked again against the type). The type cannot change.',
  parameters: withWorkflow(pathParam('stepId', 'The step.')),
  response: { description: 'The updated step.', shape: WorkflowStep },
  errors: { '403': unverifiedSender },
};

export const deleteWorkflowStep: EndpointDoc = {
  operationId: 'deleteWorkflowStep',
  summary: 'Delete a step',
  description:
    'Deletes the step and its transitions. With `splice=true` each transition into the step is reconnected, keeping ' +
    'its branch, to the step its transitions lead to; a step leading to several steps cannot be spliced (422).',
  parameters: withWorkflow(pathParam('stepId', 'The step.')),
  response: deleted,
  errors: { '422': invalid('The step cannot be spliced out', { field: 'splice', code: 'several_next_steps', message: 'Step "Branch" leads to several steps …' }) },
};

export const addWorkflowTransition: EndpointDoc = {
  operationId: 'addWorkflowTransition',
  summary: 'Add a transition',
  parameters: [workflowId],
  response: { status: 201, description: 'The new transition.', shape: WorkflowTransition, example: exampleTransition },
  errors: { '422': invalid('The transition is not allowed', { field: 'toStepId', code: 'cycle', message: 'The transition would close a cycle …' }) },
};

export const deleteWorkflowTransition: EndpointDoc = {
  operationId: 'deleteWorkflowTransition',
  summary: 'Delete a transition',
  parameters: withWorkflow(pathParam('transitionId', 'The transition.')),
  response: deleted,
};

export const startWorkflowExecution: EndpointDoc = {
  operationId: 'startWorkflowExecution',
  summary: 'Start an execution',
  description:
    'Starts an execution for an existing contact, named by `contactId` or `email` (exactly one), also while the ' +
    'workflow is disabled. The graph must be able to run (422). `context` is stored on the execution.',
  parameters: [workflowId],
  response: { status: 201, description: 'The execution.', shape: WorkflowExecution, example: { ...exampleExecution, status: 'RUNNING' } },
  errors: {
    '409': jsonResponse(
      'The start was dropped: the contact has an active execution of the workflow (`EXECUTION_ACTIVE`), or went through it before and `allowReentry` is false (`REENTRY_NOT_ALLOWED`).',
      schemaRef('ErrorResponse'),
      { example: errorExample(409, 'EXECUTION_ACTIVE', 'The contact already has a running or waiting execution of this workflow') },
    ),
    '503': unavailable,
  },
};

export const listWorkflowExecutions: EndpointDoc = {
  operationId: 'listWorkflowExecutions',
  summary: 'List executions',
  description: 'Cursor-paginated, newest first.',
  parameters: [workflowId],
  response: { description: 'A page of executions.', shape: cursorPageOf(WorkflowExecution) },
};

export const cancelAllWorkflowExecutions: EndpointDoc = {
  operationId: 'cancelAllWorkflowExecutions',
  summary: 'Cancel every active execution',
  parameters: [workflowId],
  response: { description: 'How many executions were cancelled.', shape: CancelledExecutions, example: { cancelled: 3 } },
  errors: { '503': unavailable },
};

export const getWorkflowExecution: EndpointDoc = {
  operationId: 'getWorkflowExecution',
  summary: 'Get an execution',
  parameters: withWorkflow(pathParam('executionId', 'The execution.')),
  response: { description: 'The execution.', shape: WorkflowExecution, example: exampleExecution },
};

export const cancelWorkflowExecution: EndpointDoc = {
  operationId: 'cancelWorkflowExecution',
  summary: 'Cancel an execution',
  description: 'Cancels a `RUNNING` or `WAITING` execution: it becomes `CANCELLED` and sends nothing further.',
  parameters: withWorkflow(pathParam('executionId', 'The execution.')),
  response: { description: 'The execution after cancelling.', shape: WorkflowExecution },
  errors: { '409': errorResponse(409, 'EXECUTION_NOT_ACTIVE', 'The execution already ended'), '503': unavailable },
};
