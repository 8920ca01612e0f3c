import { Type } from 'class-transformer';
import { Allow, Equals, IsBoolean, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, MaxLength, Min, ValidateBy, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { EXECUTION_STATUSES, STEP_TYPES, type Branch, type ExecutionStatus, type StepType } from '../entities/workflow';
import { CursorPageQuery } from '../http/page-query';
import { IsDateTime, NotBlank, Nullable, NullableDateTime, Optional } from '../http/validate';
import { choiceIgnoringCase, notBlank as notBlankSchema, object, orEmpty, orNull, schemaRef } from '../openapi/builders';
import type { Schema } from '../openapi/types';
import { code, documented, STEP_CONFIG_SCHEMAS } from './step-config-dtos';

const notBlank = '$property must not be blank';
const position: Schema = orNull(object({ x: { type: 'number' }, y: { type: 'number' } }));

/** A workflow's trigger: the event that starts an execution for its contact. */
export class WorkflowTrigger {
  @IsOptional()
  @ValidateBy(
    { name: 'isEventName', validator: { validate: (value) => typeof value === 'string' && value.trim() !== '' && value.length <= 255 } },
    { message: 'eventName must be a non-empty string of at most 255 characters', ...code('invalid_string') },
  )
  @documented({ ...notBlankSchema({ type: 'string', maxLength: 255 }), description: 'Stored trimmed; required to enable.' })
  eventName?: string;
}

/** The fields of `POST /workflows` and `PATCH /workflows/{id}`. */
class WorkflowFields {
  @Optional() @IsString() @NotBlank(notBlank) @MaxLength(255) @JSONSchema({ description: 'Display name, trimmed.' })
  name?: string;

  @Nullable() @IsString() @MaxLength(2000)
  description?: string | null;

  @Optional() @IsIn(['EVENT'], { message: 'triggerType must be EVENT' }) @JSONSchema({ description: 'Only `EVENT`.', default: 'EVENT' })
  triggerType?: 'EVENT';

  @IsOptional() @IsObject({ message: 'triggerConfig must be an object { eventName }' })
  @documented({ ...orNull(schemaRef('WorkflowTrigger')), description: 'The event that starts an execution; `null` clears it.' })
  triggerConfig?: object | null;

  @Optional() @IsBoolean() @JSONSchema({ description: 'Whether a contact may enter again once its previous execution ended.', default: false })
  allowReentry?: boolean;
}

/** `POST /workflows`: `name` is required; the workflow is created disabled, whatever `enabled` says. */
export class CreateWorkflowBody extends WorkflowFields {
  @Optional() @IsBoolean() @JSONSchema({ description: 'Ignored: a workflow is created disabled (enable it with PATCH).' })
  enabled?: boolean;
}

/** `PATCH /workflows/{id}`: the fields sent change. */
export class UpdateWorkflowBody extends WorkflowFields {
  @Optional() @IsBoolean() @JSONSchema({ description: '`true` checks the trigger and the graph.' })
  enabled?: boolean;
}

/** `position` of a step body: `{ x, y }` numbers, or null. */
const StepPosition = () =>
  ValidateBy(
    {
      name: 'isPosition',
      validator: {
        validate: (value) => typeof value === 'object' && value !== null && Number.isFinite((value as { x?: unknown }).x) && Number.isFinite((value as { y?: unknown }).y),
      },
    },
    { message: 'position must be { x, y } with numbers, or null', ...code('invalid_type') },
  );

/** `PATCH /workflows/{id}/steps/{stepId}`, and a new step's fields besides its type: the type cannot change; `config` is checked again against it. */
export class UpdateWorkflowStepBody {
  @Optional() @IsString() @NotBlank(notBlank) @MaxLength(255) @JSONSchema({ description: 'Display name, trimmed; defaults to the type (`Send email`, `Delay`, …).' })
  name?: string;

  @IsOptional() @documented({ description: 'See the tag description.' })
  config?: unknown;

  @IsOptional() @StepPosition() @documented({ ...position, description: 'Where the editor draws the step.' })
  position?: { x: number; y: number } | null;
}

/** `POST /workflows/{id}/steps`: `config` must suit `type` (a missing `type` answers `type` required). */
@JSONSchema({
  anyOf: STEP_TYPES.map((type) => ({ properties: { type: { const: type }, config: STEP_CONFIG_SCHEMAS[type] } })),
})
export class AddWorkflowStepBody extends UpdateWorkflowStepBody {
  @IsIn(STEP_TYPES, { message: `type must be one of ${STEP_TYPES.join(', ')}` })
  type!: StepType;
}

/** `POST /workflows/{id}/transitions`. */
export class AddWorkflowTransitionBody {
  @IsUUID('all', { message: 'fromStepId must be a step id' }) fromStepId!: string;
  @IsUUID('all', { message: 'toStepId must be a step id' }) toStepId!: string;

  @Nullable('Required from CONDITION steps; optional from WAIT_FOR_EVENT.') @IsIn(['yes', 'no'], { message: 'branch must be yes or no' })
  branch?: Branch | null;
}

/** `POST /workflows/{id}/executions`: exactly one of `contactId` and `email`. */
@JSONSchema({ oneOf: [{ required: ['contactId'] }, { required: ['email'] }] })
export class StartWorkflowExecutionBody {
  @Optional() @IsUUID('all', { message: 'contactId must be a contact id' })
  contactId?: string;

  @Optional() @IsString() @MaxLength(320) @JSONSchema({ description: 'The email of an existing contact, as stored.' })
  email?: string;

  /** Checked after the contactId/email rule, as `executionStart` does (an object or null). */
  @Allow() @JSONSchema({ anyOf: [{ type: 'object' }, { type: 'null' }], description: 'Stored on the execution.' })
  context?: Record<string, unknown> | null;
}

/** `GET /workflows/fields`. */
export class WorkflowFieldsQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'The trigger event to read keys from.' })
  eventName?: string;
}

/** `DELETE /workflows/{id}/steps/{stepId}`. */
export class DeleteWorkflowStepQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Reconnect the surrounding transitions (`true` or `1`).', type: 'boolean', default: false })
  splice?: string;
}

/** `GET /workflows/{id}/executions`: an unrecognised `status` answers 400. */
export class WorkflowExecutionListQuery extends CursorPageQuery {
  /** Checked by the handler after the cursor and the workflow id, as `statusOf` does. */
  @IsOptional() @IsString()
  @documented({
    ...orEmpty(choiceIgnoringCase(EXECUTION_STATUSES)),
    description: `Only executions in this status (${EXECUTION_STATUSES.join(', ')}), in any letter case; empty means all, anything else answers 400.`,
  })
  status?: string;
}

/** A step as the API shows it. */
export class WorkflowStep {
  @IsUUID() id!: string;
  @IsIn(STEP_TYPES) type!: StepType;
  @IsString() name!: string;
  @IsObject() @JSONSchema({ description: 'By `type`: see the tag description.' }) config!: object;
  @IsOptional() @documented(position) position!: { x: number; y: number } | null;
}

/** A transition as the API shows it; `branch` is null when unlabelled. */
export class WorkflowTransition {
  @IsUUID() id!: string;
  @IsUUID() fromStepId!: string;
  @IsUUID() toStepId!: string;
  @Nullable() @IsIn(['yes', 'no']) branch!: Branch | null;
}

/** A workflow as the API shows it, with its graph. */
export class Workflow {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @Nullable() @IsString() description!: string | null;
  @Equals('EVENT') triggerType!: 'EVENT';
  @ValidateNested() @Type(() => WorkflowTrigger) triggerConfig!: WorkflowTrigger;
  @IsBoolean() enabled!: boolean;
  @IsBoolean() allowReentry!: boolean;
  @ValidateNested({ each: true }) @Type(() => WorkflowStep) steps!: WorkflowStep[];
  @ValidateNested({ each: true }) @Type(() => WorkflowTransition) transitions!: WorkflowTransition[];
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

/** An execution as the API shows it. */
export class WorkflowExecution {
  @IsUUID() id!: string;
  @IsUUID() workflowId!: string;
  @Nullable('Null once the contact was deleted.') @IsUUID() contactId!: string | null;
  @IsIn(EXECUTION_STATUSES) @JSONSchema({ description: '`RUNNING` and `WAITING` (on a delay or an event) are active; the rest are final.' })
  status!: ExecutionStatus;
  @Nullable() @IsUUID() currentStepId!: string | null;
  @IsObject() @JSONSchema({ description: 'The context given at start; `skipped` lists SEND_EMAIL steps that sent nothing, and why.' })
  context!: object;
  @Nullable('Why a `FAILED` execution failed.') @IsString() error!: string | null;
  @IsDateTime() startedAt!: Date;
  @NullableDateTime() completedAt!: Date | null;
}

class WorkflowContactField {
  @IsString() field!: string;
  @IsString() type!: string;
  @IsBoolean() isCustom!: boolean;
  @IsNumber() coverage!: number;
}

class WorkflowEventField {
  @IsString() @JSONSchema({ description: '`event.data.<key>`.' }) field!: string;
  @IsString() @JSONSchema({ description: '`string`, `number`, `boolean`, `object`, `array` or `null`.' }) type!: string;
}

/** The fields CONDITION steps can use. */
export class WorkflowConditionFields {
  @ValidateNested({ each: true }) @Type(() => WorkflowContactField) contact!: WorkflowContactField[];
  @ValidateNested({ each: true }) @Type(() => WorkflowEventField) event!: WorkflowEventField[];
}

/** How many executions cancel-all cancelled. */
export class CancelledExecutions {
  @IsInt() @Min(0) cancelled!: number;
}
