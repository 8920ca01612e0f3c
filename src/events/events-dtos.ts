import { Equals, IsBoolean, IsEmail, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { IsDateTime, Nullable } from '../http/validate';
import { CursorPageQuery } from '../http/page-query';
import { schemaRef } from '../openapi/builders';

/** The event names Herald records itself, which `/v1/track` refuses (see `isReservedEventName`). */
export const RESERVED_NAMES =
  'Reserved names are refused: `email.*`, `contact.subscribed`, `contact.unsubscribed`, ' +
  '`segment.<slug>.entry` and `segment.<slug>.exit` (those events are recorded by Herald itself).';

/** `POST /v1/track` and `POST /events/track`: a contact by email and the event to record on it. */
export class TrackRequest {
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(320)
  @JSONSchema({ description: 'The contact; created when unknown.' })
  email!: string;

  @IsString() @IsNotEmpty() @MaxLength(255) @JSONSchema({ description: `The event name. ${RESERVED_NAMES}` })
  event!: string;

  @IsOptional() @IsObject()
  @JSONSchema((() => ({
    anyOf: [schemaRef('ContactDataPatch'), { type: 'null' }],
    description: 'Stored on the contact and attached to the event; see the `data` rules.',
  })) as never)
  data?: Record<string, unknown>;

  @Nullable('Subscription state to apply. New contacts default to `true`; existing ones are unchanged unless it is given (null counts as not given).')
  @IsBoolean()
  subscribed?: boolean;
}

class TrackedEvent {
  @IsUUID() @JSONSchema({ description: 'The id of the contact.' }) contact!: string;
  @IsUUID() @JSONSchema({ description: 'The id of the stored event.' }) event!: string;
  @IsDateTime() timestamp!: Date;
}

/** What tracking answers. */
export class TrackResult {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => TrackedEvent) data!: TrackedEvent;
}

/** `GET /events`: a cursor page, optionally of one name or one contact (a `contactId` that is no UUID matches nothing). */
export class EventListQuery extends CursorPageQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Only events with this name.' })
  name?: string;

  @IsOptional() @IsString() @JSONSchema({ description: "Only this contact's events.", format: 'uuid' })
  contactId?: string;
}

/** A stored event, tracked (`API`) or recorded by Herald (`SYSTEM`). */
export class Event {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @Nullable() @IsUUID() contactId!: string | null;

  @IsObject() @JSONSchema({ description: 'The data sent with the event.', additionalProperties: true })
  data!: Record<string, unknown>;

  @IsIn(['API', 'SYSTEM']) @JSONSchema({ description: '`API` for tracked events, `SYSTEM` for those Herald records.' })
  source!: string;

  @IsDateTime() createdAt!: Date;
}

class EventNameCount {
  @IsString() name!: string;
  @IsInt() @Min(0) count!: number;
}

/** Counts of a project's events over time windows and per name. */
export class EventStats {
  @IsInt() @Min(0) @JSONSchema({ description: 'Events of the project, all time.' }) total!: number;
  @IsInt() @Min(0) last24h!: number;
  @IsInt() @Min(0) last7d!: number;
  @IsInt() @Min(0) last30d!: number;
  @ValidateNested({ each: true }) @Type(() => EventNameCount) @JSONSchema({ description: 'Event count per name.' })
  byName!: EventNameCount[];
}

class EventNameSeen extends EventNameCount {
  @IsDateTime() lastSeenAt!: Date;
}

/** Every distinct event name of a project. */
export class EventNameList {
  @ValidateNested({ each: true }) @Type(() => EventNameSeen) data!: EventNameSeen[];
}

class EventUsageRef {
  @IsUUID() id!: string;
  @IsString() name!: string;
}

/** The resources that reference an event name. */
export class EventUsage {
  @IsString() name!: string;
  @ValidateNested({ each: true }) @Type(() => EventUsageRef) workflows!: EventUsageRef[];
  @ValidateNested({ each: true }) @Type(() => EventUsageRef) segments!: EventUsageRef[];
  @ValidateNested({ each: true }) @Type(() => EventUsageRef) campaigns!: EventUsageRef[];
}

/** How many events `DELETE /events/{eventName}` deleted. */
export class DeletedEvents {
  @IsInt() @Min(0) @JSONSchema({ description: 'How many events were deleted.' }) deleted!: number;
}
