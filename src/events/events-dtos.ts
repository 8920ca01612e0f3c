import { Equals, IsBoolean, IsEmail, isEmail, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, MaxLength, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { IsDateTime, Nullable } from '../http/validate';
import { CursorPageQuery } from '../http/page-query';
import { schemaRef } from '../openapi/builders';

/** The event names Herald records itself, which `/v1/track` refuses (see `isReservedEventName`). */
export const RESERVED_NAMES =
  'Reserved names are refused: `email.*`, `contact.subscribed`, `contact.unsubscribed`, ' +
  '`segment.<slug>.entry` and `segment.<slug>.exit` (those events are recorded by Herald itself).';

/** The longest contact email a track request may hold. */
const MAX_EMAIL_LENGTH = 320;
/** The longest event name a track request may hold. */
const MAX_EVENT_LENGTH = 255;

/** `POST /v1/track` and `POST /events/track`: a contact by email and the event to record on it. */
export class TrackRequest {
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(MAX_EMAIL_LENGTH)
  @JSONSchema({ description: 'The contact; created when unknown.' })
  email!: string;

  @IsString() @IsNotEmpty() @MaxLength(MAX_EVENT_LENGTH) @JSONSchema({ description: `The event name. ${RESERVED_NAMES}` })
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

/** How many emails the quick check remembers as valid. */
const VALID_EMAILS_KEPT = 10_000;
/** Emails the quick check found valid lately: contacts are tracked again and again, and the email check is the costliest part of it. */
const validEmails = new Set<string>();

/** Whether an email passes TrackRequest's email check; an email that did lately is not checked again. */
function validEmail(email: string): boolean {
  if (validEmails.has(email)) return true;
  if (!isEmail(email, {})) return false;
  if (validEmails.size >= VALID_EMAILS_KEPT) validEmails.clear();
  validEmails.add(email);
  return true;
}

/** The properties TrackRequest declares: the only ones a validated body keeps. */
const TRACK_FIELDS = ['email', 'event', 'data', 'subscribed'] as const;

/**
 * The hot path's check of a track body: answers the validated TrackRequest when the body
 * certainly passes TrackRequest's rules (the same email check, lengths counted in UTF-16 units,
 * which never undercount; no property but those four), else undefined, and the DTO then
 * decides and names what is wrong.
 * What it answers equals what `parseBody(TrackRequest, body)` answers.
 */
export function quickTrackRequest(body: unknown): TrackRequest | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const key of Object.keys(body)) if (!(TRACK_FIELDS as readonly string[]).includes(key)) return undefined;
  const { email, event, data, subscribed } = body as Record<string, unknown>;
  if (typeof email !== 'string' || email.length > MAX_EMAIL_LENGTH || !validEmail(email)) return undefined;
  if (typeof event !== 'string' || event.length === 0 || event.length > MAX_EVENT_LENGTH) return undefined;
  if (data != null && (typeof data !== 'object' || Array.isArray(data))) return undefined;
  if (subscribed != null && typeof subscribed !== 'boolean') return undefined;
  const request = new TrackRequest();
  for (const field of TRACK_FIELDS) if (Object.hasOwn(body, field)) (request as unknown as Record<string, unknown>)[field] = (body as Record<string, unknown>)[field];
  return request;
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
