import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsIn, IsInt, IsString, IsUUID, MaxLength, Min } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { ConditionTree } from '../conditions/condition-dto';
import type { Condition } from '../conditions/condition';
import type { SegmentType } from '../entities/segment';
import { IsDateTime, NotBlank, Nullable, Optional } from '../http/validate';

/** The two kinds of segment. */
export const SEGMENT_TYPES: SegmentType[] = ['DYNAMIC', 'STATIC'];

const nameDescription = 'Display name, trimmed; also gives the slug of the entry and exit events.';
const trackMembership = {
  default: false,
  description: 'Keep a stored membership and record `segment.<slug>.entry` / `segment.<slug>.exit` events as contacts join and leave.',
};

/** The fields every segment body may carry besides `name`, `type` and `condition` (the route trims `name` first). */
class SegmentFields {
  @Nullable('Internal note.') @IsString() @MaxLength(500)
  description?: string | null;

  @Optional() @IsBoolean() @JSONSchema(trackMembership)
  trackMembership?: boolean;
}

/**
 * `POST /segments`: a missing or blank `name` answers the bare `{ error }`; a `STATIC` segment takes any
 * `condition` (and drops it), any other needs a condition object, checked with `parseCondition`.
 */
@JSONSchema({
  anyOf: [
    { type: 'object', properties: { type: { enum: ['STATIC'] } }, required: ['type'] },
    { type: 'object', properties: { condition: { $ref: '#/components/schemas/Condition' } }, required: ['condition'] },
  ],
})
export class CreateSegmentBody extends SegmentFields {
  @IsString() @MaxLength(100) @NotBlank() @JSONSchema({ description: nameDescription })
  name!: string;

  @Optional() @IsIn(SEGMENT_TYPES, { message: 'type must be DYNAMIC or STATIC' })
  @JSONSchema({
    default: 'DYNAMIC',
    description:
      '`DYNAMIC`: the contacts matching `condition`, evaluated live. `STATIC`: a list managed with `/segments/{id}/members`. Fixed at creation.',
  })
  type?: SegmentType;

  @Optional() @JSONSchema({ description: 'Required for `DYNAMIC`; ignored for `STATIC` (stored as null).' })
  condition?: unknown;
}

/** `PATCH /segments/{id}`: any subset; `type` cannot change and is ignored; `condition` applies to DYNAMIC segments only. */
export class UpdateSegmentBody extends SegmentFields {
  @Optional() @IsString() @MaxLength(100) @NotBlank() @JSONSchema({ description: nameDescription })
  name?: string;

  @ConditionTree({ description: 'A new condition (DYNAMIC only); recounts `memberCount`.' })
  condition?: unknown;
}

/** `POST /segments/{id}/members`: emails to add to a STATIC segment. */
export class AddSegmentMembersBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsEmail({}, { each: true, message: 'each of emails must be a valid email address' })
  @JSONSchema({ description: '1 to 1,000 addresses.' })
  emails!: string[];

  @Optional() @IsBoolean() @JSONSchema({ default: false, description: 'Create contacts for unknown emails.' })
  createMissing?: boolean;

  @Optional() @IsBoolean() @JSONSchema({ default: true, description: 'Subscription of the contacts created.' })
  subscribed?: boolean;
}

/** `DELETE /segments/{id}/members`: emails to remove from a STATIC segment. */
export class RemoveSegmentMembersBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsString({ each: true })
  @JSONSchema({ description: '1 to 1,000 strings; those that are no member are ignored.' })
  emails!: string[];
}

/** A stored segment, as the segment endpoints answer it. */
export class Segment {
  @IsUUID() id!: string;
  @IsString() @JSONSchema({ description: nameDescription }) name!: string;
  @Nullable('Internal note.') @IsString() description!: string | null;
  @IsIn(SEGMENT_TYPES) type!: SegmentType;
  @ConditionTree({ nullable: true, description: 'The condition of a DYNAMIC segment; null for STATIC.' }) condition!: Condition | null;
  @IsBoolean() @JSONSchema(trackMembership) trackMembership!: boolean;
  @IsInt() @Min(0) @JSONSchema({ description: 'Cached count; see the tag description.' }) memberCount!: number;
  @IsUUID() projectId!: string;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

/** What a full computation of a tracked segment changed. */
export class SegmentComputeResult {
  @IsInt() @Min(0) @JSONSchema({ description: 'Contacts that joined (one entry event each).' }) entered!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Contacts that left (one exit event each).' }) exited!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Members stored now.' }) memberCount!: number;
}

/** What adding emails to a STATIC segment did. */
export class SegmentMembersAdded {
  @IsInt() @Min(0) added!: number;
  @IsInt() @Min(0) alreadyMembers!: number;
  @IsInt() @Min(0) created!: number;
  @IsString({ each: true }) @JSONSchema({ description: 'Emails without a contact, as sent (empty with `createMissing`).' }) notFound!: string[];
}

/** How many members a removal took out. */
export class SegmentMembersRemoved {
  @IsInt() @Min(0) removed!: number;
}

/** A segment's count after a refresh. */
export class SegmentMemberCount {
  @IsInt() @Min(0) memberCount!: number;
}
