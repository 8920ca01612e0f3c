import {
  arrayOf,
  choiceIgnoringCase,
  commonErrors,
  cursorPage,
  dateTime,
  described,
  errorExample,
  errorResponse,
  jsonBody,
  jsonResponse,
  notBlank,
  object,
  orEmpty,
  orNull,
  parameterRef,
  pathParam,
  queryParam,
  rateLimitHeaders,
  schemaRef,
  uuid,
} from '../builders';
import type { PathModule, Response, Schema } from '../types';
import { newStepBody, STEP_CONFIGS, STEP_TYPES } from '../workflow-steps';

const workflowId = pathParam('id', 'The workflow.');
const secretKeyErrors = [401, 403, 429] as const;
const okHeaders = { headers: rateLimitHeaders };
const text = (description: string): Schema => described({ type: 'string' }, description);
const STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'CANCELLED', 'FAILED'];

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

const exampleWorkflow = {
  id: '3f9a1c2e-7b4d-4e6f-8a0b-1c2d3e4f5a6b',
  name: 'Welcome series',
  description: 'Greets new sign-ups',
  triggerType: 'EVENT',
  triggerConfig: { eventName: 'signed_up' },
  enabled: true,
  allowReentry: false,
  steps: [
    { id: '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', type: 'SEND_EMAIL', name: 'Welcome', config: { templateId: '8a7b6c5d-4e3f-4a1b-9c8d-7e6f5a4b3c2d' }, position: { x: 0, y: 0 } },
    { id: '7b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e', type: 'EXIT', name: 'Exit', config: {}, position: null },
  ],
  transitions: [{ id: '9d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a', fromStepId: '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', toStepId: '7b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e', branch: null }],
  createdAt: '2025-01-01T12:00:00.000Z',
  updatedAt: '2025-01-02T08:30:00.000Z',
};

const exampleExecution = {
  id: '1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b',
  workflowId: exampleWorkflow.id,
  contactId: '5b0d6a2e-8f3c-4c1e-9a7d-2e4f6b8c0d13',
  status: 'WAITING',
  currentStepId: '6a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  context: {},
  error: null,
  startedAt: '2025-01-03T10:00:00.000Z',
  completedAt: null,
};

const workflowFields = {
  name: described(notBlank({ type: 'string', maxLength: 255 }), 'Display name, trimmed.'),
  description: orNull({ type: 'string', maxLength: 2000 }),
  triggerType: described({ type: 'string', enum: ['EVENT'], default: 'EVENT' }, 'Only `EVENT`.'),
  triggerConfig: described(object({ eventName: { type: 'string', minLength: 1, maxLength: 255 } }, []), 'The event that starts an execution; required to enable.'),
  allowReentry: described({ type: 'boolean', default: false }, 'Whether a contact may enter again once its previous execution ended.'),
};

const invalid = (what: string, example: { field: string; code: string; message: string }): Response =>
  jsonResponse(`${what} (\`VALIDATION_ERROR\`; each problem in \`error.errors\`).`, schemaRef('ErrorResponse'), {
    example: errorExample(422, 'VALIDATION_ERROR', what, { errors: [example] }),
  });

const unverifiedSender = errorResponse(403, 'INTERNAL_SERVER_ERROR', 'The `from` domain of an inline SEND_EMAIL step is not verified for the project');
const unavailable = errorResponse(503, 'SERVICE_UNAVAILABLE', 'Temporal is not reachable');
const deleted = jsonResponse('Deleted.', schemaRef('Success'), { ...okHeaders, example: { success: true } });
const stepBody = {
  name: described(notBlank({ type: 'string', maxLength: 255 }), 'Display name, trimmed; defaults to the type (`Send email`, `Delay`, …).'),
  config: described({ type: 'object' }, 'See the tag description.'),
  position: described(orNull(object({ x: { type: 'number' }, y: { type: 'number' } })), 'Where the editor draws the step.'),
};

/** Workflows: per-contact automations over a graph of steps, started by events. */
export const pathModule: PathModule = {
  tag: {
    name: 'Workflows',
    description:
      'Automations: a graph of steps joined by transitions, run once per contact as an execution (the Temporal ' +
      'workflow `wf-exec/<executionId>`, which can also be inspected and cancelled in the Temporal UI). A workflow is ' +
      `created disabled. Secret key.\n\n${GRAPH_RULES}\n\n${STEP_CONFIGS}`,
  },
  schemas: {
    WorkflowStep: object({ id: uuid, type: { type: 'string', enum: STEP_TYPES }, name: { type: 'string' }, config: { type: 'object' }, position: stepBody.position }),
    WorkflowTransition: object({ id: uuid, fromStepId: uuid, toStepId: uuid, branch: orNull({ type: 'string', enum: ['yes', 'no'] }) }),
    Workflow: {
      ...object({
        id: uuid,
        ...workflowFields,
        enabled: { type: 'boolean' },
        steps: arrayOf(schemaRef('WorkflowStep')),
        transitions: arrayOf(schemaRef('WorkflowTransition')),
        createdAt: dateTime,
        updatedAt: dateTime,
      }),
      example: exampleWorkflow,
    },
    WorkflowExecution: {
      ...object({
        id: uuid,
        workflowId: uuid,
        contactId: described(orNull(uuid), 'Null once the contact was deleted.'),
        status: described({ type: 'string', enum: STATUSES }, '`RUNNING` and `WAITING` (on a delay or an event) are active; the rest are final.'),
        currentStepId: orNull(uuid),
        context: described({ type: 'object' }, 'The context given at start; `skipped` lists SEND_EMAIL steps that sent nothing, and why.'),
        error: described(orNull({ type: 'string' }), 'Why a `FAILED` execution failed.'),
        startedAt: dateTime,
        completedAt: orNull(dateTime),
      }),
      example: exampleExecution,
    },
  },
  paths: {
    '/workflows': {
      get: {
        operationId: 'listWorkflows',
        summary: 'List workflows',
        description: 'Every workflow of the project with its steps and transitions, newest first; a bare array, not paginated.',
        responses: { '200': jsonResponse('The workflows.', arrayOf(schemaRef('Workflow')), okHeaders), ...commonErrors(...secretKeyErrors) },
      },
      post: {
        operationId: 'createWorkflow',
        summary: 'Create a workflow',
        description: 'Created with `triggerType: EVENT`, `enabled: false` and no steps.',
        requestBody: jsonBody(object(workflowFields, ['name'])),
        responses: { '201': jsonResponse('The new workflow.', schemaRef('Workflow'), okHeaders), ...commonErrors(401, 413, 422, 429) },
      },
    },
    '/workflows/fields': {
      get: {
        operationId: 'listWorkflowFields',
        summary: 'List the fields CONDITION steps can use',
        description:
          '`contact`: the contact fields as `GET /contacts/fields` lists them. `event`: `event.data.<key>` of the ' +
          'triggering event, with the JSON type seen most, from the latest 200 events of `eventName` (default: every ' +
          "trigger event of the project's workflows).",
        parameters: [queryParam('eventName', 'The trigger event to read keys from.', { type: 'string' })],
        responses: {
          '200': jsonResponse(
            'The fields.',
            object({
              contact: arrayOf(object({ field: { type: 'string' }, type: { type: 'string' }, isCustom: { type: 'boolean' }, coverage: { type: 'number' } })),
              event: arrayOf(object({ field: text('`event.data.<key>`.'), type: text('`string`, `number`, `boolean`, `object`, `array` or `null`.') })),
            }),
            { ...okHeaders, example: { contact: [{ field: 'data.plan', type: 'string', isCustom: true, coverage: 0.8 }], event: [{ field: 'event.data.amount', type: 'number' }] } },
          ),
          ...commonErrors(...secretKeyErrors),
        },
      },
    },
    '/workflows/{id}': {
      parameters: [workflowId],
      get: {
        operationId: 'getWorkflow',
        summary: 'Get a workflow',
        responses: { '200': jsonResponse('The workflow with its graph.', schemaRef('Workflow'), okHeaders), ...commonErrors(...secretKeyErrors, 404) },
      },
      patch: {
        operationId: 'updateWorkflow',
        summary: 'Update a workflow',
        description:
          'Changes the fields sent. `enabled: true` (or a new trigger on an enabled workflow) checks the trigger and the ' +
          'graph (see the tag description) and answers 422 listing every problem. Disabling stops new executions; those ' +
          'under way go on.',
        requestBody: jsonBody(object({ ...workflowFields, enabled: { type: 'boolean' } }, [])),
        responses: {
          '200': jsonResponse('The updated workflow.', schemaRef('Workflow'), okHeaders),
          '422': invalid('The workflow cannot be enabled', { field: 'steps', code: 'entry_step', message: 'The workflow has 2 entry steps …' }),
          ...commonErrors(401, 404, 413, 429),
        },
      },
      delete: {
        operationId: 'deleteWorkflow',
        summary: 'Delete a workflow',
        description: 'Deletes the workflow, its graph and its finished executions. Refused while executions run or wait: cancel them first.',
        responses: {
          '200': deleted,
          '409': errorResponse(409, 'WORKFLOW_ACTIVE', 'Executions of the workflow are RUNNING or WAITING'),
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/workflows/{id}/steps': {
      parameters: [workflowId],
      post: {
        operationId: 'addWorkflowStep',
        summary: 'Add a step',
        description: 'The step is not connected; add transitions to place it in the graph.',
        requestBody: jsonBody(newStepBody(stepBody)),
        responses: {
          '201': jsonResponse('The new step.', schemaRef('WorkflowStep'), okHeaders),
          '403': unverifiedSender,
          '422': invalid('The step config is not valid', { field: 'config.unit', code: 'invalid_enum_value', message: 'unit is one of seconds, …' }),
          ...commonErrors(401, 404, 413, 429),
        },
      },
    },
    '/workflows/{id}/steps/{stepId}': {
      parameters: [workflowId, pathParam('stepId', 'The step.')],
      patch: {
        operationId: 'updateWorkflowStep',
        summary: 'Update a step',
        description: 'Changes `name`, `position` or `config` (checked again against the type). The type cannot change.',
        requestBody: jsonBody(object(stepBody, [])),
        responses: {
          '200': jsonResponse('The updated step.', schemaRef('WorkflowStep'), okHeaders),
          '403': unverifiedSender,
          ...commonErrors(401, 404, 413, 422, 429),
        },
      },
      delete: {
        operationId: 'deleteWorkflowStep',
        summary: 'Delete a step',
        description:
          'Deletes the step and its transitions. With `splice=true` each transition into the step is reconnected, keeping ' +
          'its branch, to the step its transitions lead to; a step leading to several steps cannot be spliced (422).',
        parameters: [queryParam('splice', 'Reconnect the surrounding transitions.', { type: 'boolean', default: false })],
        responses: { '200': deleted, ...commonErrors(...secretKeyErrors, 404, 422) },
      },
    },
    '/workflows/{id}/transitions': {
      parameters: [workflowId],
      post: {
        operationId: 'addWorkflowTransition',
        summary: 'Add a transition',
        requestBody: jsonBody(
          object({ fromStepId: uuid, toStepId: uuid, branch: described(orNull({ type: 'string', enum: ['yes', 'no'] }), 'Required from CONDITION steps; optional from WAIT_FOR_EVENT.') }, [
            'fromStepId',
            'toStepId',
          ]),
        ),
        responses: {
          '201': jsonResponse('The new transition.', schemaRef('WorkflowTransition'), okHeaders),
          '422': invalid('The transition is not allowed', { field: 'toStepId', code: 'cycle', message: 'The transition would close a cycle …' }),
          ...commonErrors(401, 404, 413, 429),
        },
      },
    },
    '/workflows/{id}/transitions/{transitionId}': {
      parameters: [workflowId, pathParam('transitionId', 'The transition.')],
      delete: { operationId: 'deleteWorkflowTransition', summary: 'Delete a transition', responses: { '200': deleted, ...commonErrors(...secretKeyErrors, 404) } },
    },
    '/workflows/{id}/executions': {
      parameters: [workflowId],
      post: {
        operationId: 'startWorkflowExecution',
        summary: 'Start an execution',
        description:
          'Starts an execution for an existing contact, named by `contactId` or `email` (exactly one), also while the ' +
          'workflow is disabled. The graph must be able to run (422). `context` is stored on the execution.',
        requestBody: jsonBody({
          ...object(
            {
              contactId: uuid,
              email: described({ type: 'string', maxLength: 320 }, 'The email of an existing contact, as stored.'),
              context: orNull({ type: 'object' }),
            },
            [],
          ),
          oneOf: [{ required: ['contactId'] }, { required: ['email'] }],
        }),
        responses: {
          '201': jsonResponse('The execution.', schemaRef('WorkflowExecution'), okHeaders),
          '409': jsonResponse(
            'The start was dropped: the contact has an active execution of the workflow (`EXECUTION_ACTIVE`), or went through it before and `allowReentry` is false (`REENTRY_NOT_ALLOWED`).',
            schemaRef('ErrorResponse'),
            { example: errorExample(409, 'EXECUTION_ACTIVE', 'The contact already has a running or waiting execution of this workflow') },
          ),
          '503': unavailable,
          ...commonErrors(401, 404, 413, 422, 429),
        },
      },
      get: {
        operationId: 'listWorkflowExecutions',
        summary: 'List executions',
        description: 'Cursor-paginated, newest first.',
        parameters: [
          parameterRef('Limit'),
          parameterRef('Cursor'),
          queryParam(
            'status',
            `Only executions in this status (${STATUSES.join(', ')}), in any letter case; empty means all, anything else answers 400.`,
            orEmpty(choiceIgnoringCase(STATUSES)),
          ),
        ],
        responses: { '200': jsonResponse('A page of executions.', cursorPage(schemaRef('WorkflowExecution')), okHeaders), ...commonErrors(...secretKeyErrors, 400, 404) },
      },
    },
    '/workflows/{id}/executions/cancel-all': {
      parameters: [workflowId],
      post: {
        operationId: 'cancelAllWorkflowExecutions',
        summary: 'Cancel every active execution',
        responses: {
          '200': jsonResponse('How many executions were cancelled.', object({ cancelled: { type: 'integer', minimum: 0 } }), { ...okHeaders, example: { cancelled: 3 } }),
          '503': unavailable,
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
    '/workflows/{id}/executions/{executionId}': {
      parameters: [workflowId, pathParam('executionId', 'The execution.')],
      get: {
        operationId: 'getWorkflowExecution',
        summary: 'Get an execution',
        responses: { '200': jsonResponse('The execution.', schemaRef('WorkflowExecution'), okHeaders), ...commonErrors(...secretKeyErrors, 404) },
      },
      delete: {
        operationId: 'cancelWorkflowExecution',
        summary: 'Cancel an execution',
        description: 'Cancels a `RUNNING` or `WAITING` execution: it becomes `CANCELLED` and sends nothing further.',
        responses: {
          '200': jsonResponse('The execution after cancelling.', schemaRef('WorkflowExecution'), okHeaders),
          '409': errorResponse(409, 'EXECUTION_NOT_ACTIVE', 'The execution already ended'),
          '503': unavailable,
          ...commonErrors(...secretKeyErrors, 404),
        },
      },
    },
  },
};
