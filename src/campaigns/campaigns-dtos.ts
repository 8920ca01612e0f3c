import { Equals, IsEmail, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { ConditionTree } from '../conditions/condition-dto';
import type { Condition } from '../conditions/condition';
import { AUDIENCE_TYPES, CAMPAIGN_STATUSES, type AudienceType, type CampaignStatus } from '../entities/campaign';
import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { SortedPageQuery } from '../http/page-query';
import { IsDateTime, Nullable, NullableDateTime, Optional, SingleLine } from '../http/validate';
import { CAMPAIGN_SORTS } from './campaigns-queries';

const nonBlank = { message: '$property must not be empty' };
const condition = { $ref: '#/components/schemas/Condition' };

const descriptions = {
  name: 'Internal name; stored trimmed.',
  subject: 'Liquid template (see Templates); no line breaks.',
  body: 'HTML with Liquid placeholders, rendered for each recipient.',
  from: 'Sender address; its domain (or a parent domain) must be verified for the project (else 403).',
  audienceType: 'Who receives it: every contact, a segment, or a condition.',
};

/** The campaign fields a body may leave out on create and on update. */
class CampaignOptionalFields {
  @Nullable('Internal note.') @IsString() @MaxLength(2000)
  description?: string | null;

  @Nullable('Sender display name; no line breaks.') @IsString() @MaxLength(255) @SingleLine('fromName')
  fromName?: string | null;

  @Nullable('Reply-to address.') @IsEmail({}, { message: 'replyTo must be a valid email address' }) @MaxLength(320)
  replyTo?: string | null;

  @Optional() @IsIn(EMAIL_TYPES, { message: `type must be one of ${EMAIL_TYPES.join(', ')}` })
  @JSONSchema({
    default: 'MARKETING',
    description:
      '`MARKETING` goes to subscribed contacts only and carries the unsubscribe link and headers; `TRANSACTIONAL` and ' +
      '`HEADLESS` go to every contact of the audience. Suppressed addresses never receive a campaign.',
  })
  type?: EmailType;

  @Nullable('A segment of the project; required when `audienceType` is `SEGMENT`.') @IsUUID('all', { message: 'segmentId must be a UUID' })
  segmentId?: string | null;

  @ConditionTree({
    nullable: true,
    description:
      'A filter condition `{ logic, groups }` as segments use it; required when `audienceType` is `FILTERED`. An invalid ' +
      'tree is a 422 whose `errors[].field` points inside it.',
  })
  audienceCondition?: Condition | null;
}

/**
 * `POST /campaigns`: the SPEC's required fields (a missing one is a 422 `required`, checked first), and what
 * the audience type needs besides. `audienceCondition` is checked with `parseCondition` after the other fields.
 */
@JSONSchema({
  anyOf: [
    { type: 'object', properties: { audienceType: { enum: ['ALL'] } }, required: ['audienceType'] },
    { type: 'object', properties: { audienceType: { enum: ['SEGMENT'] }, segmentId: { type: 'string', format: 'uuid' } }, required: ['audienceType', 'segmentId'] },
    { type: 'object', properties: { audienceType: { enum: ['FILTERED'] }, audienceCondition: condition }, required: ['audienceType', 'audienceCondition'] },
  ],
})
export class CreateCampaignBody extends CampaignOptionalFields {
  @IsString() @MinLength(1, nonBlank) @MaxLength(255) @JSONSchema({ description: descriptions.name })
  name!: string;

  @IsString() @MinLength(1, nonBlank) @MaxLength(998) @SingleLine('subject') @JSONSchema({ description: descriptions.subject })
  subject!: string;

  @IsString() @MinLength(1, nonBlank) @JSONSchema({ description: descriptions.body })
  body!: string;

  @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320) @JSONSchema({ description: descriptions.from })
  from!: string;

  @IsIn(AUDIENCE_TYPES, { message: `audienceType must be one of ${AUDIENCE_TYPES.join(', ')}` }) @JSONSchema({ description: descriptions.audienceType })
  audienceType!: AudienceType;
}

/** `PUT /campaigns/{id}`: any subset of the fields; the merged campaign is checked as on create. */
export class UpdateCampaignBody extends CampaignOptionalFields {
  @Optional() @IsString() @MinLength(1, nonBlank) @MaxLength(255) @JSONSchema({ description: descriptions.name })
  name?: string;

  @Optional() @IsString() @MinLength(1, nonBlank) @MaxLength(998) @SingleLine('subject') @JSONSchema({ description: descriptions.subject })
  subject?: string;

  @Optional() @IsString() @MinLength(1, nonBlank) @JSONSchema({ description: descriptions.body })
  body?: string;

  @Optional() @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320) @JSONSchema({ description: descriptions.from })
  from?: string;

  @Optional() @IsIn(AUDIENCE_TYPES, { message: `audienceType must be one of ${AUDIENCE_TYPES.join(', ')}` })
  @JSONSchema({ description: descriptions.audienceType })
  audienceType?: AudienceType;
}

/** `GET /campaigns`: an unrecognised `status` is a 400 (after the page parameters); `sort` and `dir` fall back to the defaults. */
export class CampaignListQuery extends SortedPageQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Only campaigns in this status (case-insensitive).', enum: [...CAMPAIGN_STATUSES] })
  status?: string;

  @IsOptional() @IsString() @JSONSchema({ description: 'Case-insensitive substring of the name, subject or sender address.' })
  search?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: 'Sort key; `name` sorts case-insensitively.', enum: [...CAMPAIGN_SORTS], default: 'createdAt' })
  sort?: string;
}

/** `POST /campaigns/{id}/send`: `scheduledFor` is read by the route, as any value a date parser reads (else 400). */
export class SendCampaignBody {
  @IsOptional()
  @JSONSchema({
    description: 'When to send; omit or null for now.',
    anyOf: [{ type: 'string', format: 'date-time' }, { type: 'number', minimum: -8.64e15, maximum: 8.64e15 }, { type: 'null' }],
  })
  scheduledFor?: unknown;
}

/** `POST /campaigns/{id}/test`: the one address the test goes to. */
export class TestCampaignBody {
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(320)
  email!: string;
}

/** A stored campaign, as the campaign endpoints answer it. */
export class Campaign {
  @IsUUID() id!: string;
  @IsString() @JSONSchema({ description: descriptions.name }) name!: string;
  @Nullable('Internal note.') @IsString() description!: string | null;
  @IsString() @JSONSchema({ description: descriptions.subject }) subject!: string;
  @IsString() @JSONSchema({ description: descriptions.body }) body!: string;
  @IsEmail() from!: string;
  @Nullable('Sender display name.') @IsString() fromName!: string | null;
  @Nullable('Reply-to address.') @IsEmail() replyTo!: string | null;
  @IsIn(EMAIL_TYPES) type!: EmailType;
  @IsIn(CAMPAIGN_STATUSES) status!: CampaignStatus;
  @IsIn(AUDIENCE_TYPES) @JSONSchema({ description: descriptions.audienceType }) audienceType!: AudienceType;
  @Nullable('The segment of a `SEGMENT` audience.') @IsUUID() segmentId!: string | null;
  @ConditionTree({ nullable: true, description: 'The condition of a `FILTERED` audience.' }) audienceCondition!: Condition | null;
  @NullableDateTime('When a scheduled send starts (or started).') scheduledFor!: Date | null;
  @IsInt() @Min(0) @JSONSchema({ description: 'The audience size when sending started.' }) totalRecipients!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails handed to the transport.' }) sentCount!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails delivered.' }) deliveredCount!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails opened at least once.' }) openedCount!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails clicked at least once.' }) clickedCount!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails that bounced for good.' }) bouncedCount!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails marked as spam.' }) complainedCount!: number;
  @Nullable('Why a CANCELLED campaign stopped.') @IsString() stoppedReason!: string | null;
  @IsUUID() projectId!: string;
  @NullableDateTime('When every recipient had been attempted.') sentAt!: Date | null;
  @IsDateTime() createdAt!: Date;
  @IsDateTime() updatedAt!: Date;
}

/** `POST /campaigns` answers the new campaign in the envelope. */
export class CreatedCampaign {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => Campaign) data!: Campaign;
}

class CampaignSendState {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @IsIn(['SENDING', 'SCHEDULED']) status!: CampaignStatus;
  @NullableDateTime() scheduledFor!: Date | null;
}

/** What `POST /campaigns/{id}/send` answers: the new status and a sentence saying it. */
export class CampaignSendResult {
  @Equals(true) success!: true;
  @ValidateNested() @Type(() => CampaignSendState) data!: CampaignSendState;
  @IsString() message!: string;
}

/** `GET /campaigns/{id}/stats`: counters and rates. */
export class CampaignStatsSummary {
  @IsInt() @Min(0) @JSONSchema({ description: 'The audience size when sending started.' }) totalRecipients!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails handed to the transport.' }) sent!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails delivered.' }) delivered!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails opened at least once.' }) opened!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails clicked at least once.' }) clicked!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails that bounced for good.' }) bounced!: number;
  @IsInt() @Min(0) @JSONSchema({ description: 'Emails marked as spam.' }) complained!: number;
  @IsNumber() @Min(0) @Max(1) @JSONSchema({ description: '`opened / delivered`; 0 when nothing was delivered.' }) openRate!: number;
  @IsNumber() @Min(0) @Max(1) @JSONSchema({ description: '`clicked / delivered`; 0 when nothing was delivered.' }) clickRate!: number;
  @IsNumber() @Min(0) @Max(1) @JSONSchema({ description: '`bounced / sent`; 0 when nothing was sent.' }) bounceRate!: number;
}
