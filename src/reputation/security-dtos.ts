import { IsBoolean, IsIn, IsInt, IsISO8601, IsNumber, IsString, IsUUID, Max, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { Nullable, NullableDateTime } from '../http/validate';
import { REPUTATION_WINDOW_DAYS } from './thresholds';

/** A share between 0 and 1. */
const Share = (): PropertyDecorator => (target, key) => {
  IsNumber()(target, key as string);
  Min(0)(target, key as string);
  Max(1)(target, key as string);
};

/** An ISO 8601 date-time with its prose (a property keeps one JSONSchema, so IsDateTime cannot take a description). */
const DateTime = (description: string): PropertyDecorator => (target, key) => {
  IsISO8601({ strict: true })(target, key as string);
  JSONSchema((() => ({ type: 'string', format: 'date-time', description })) as never)(target, key as string);
};

/** One automatic suspension of a project, with the counts behind it. */
export class ProjectSuspension {
  @IsUUID() id!: string;
  @IsString() @JSONSchema({ description: 'Which rate reached its threshold, with the counts.' }) reason!: string;
  @IsInt() @JSONSchema({ description: 'Emails sent in the window when the project was suspended.' }) sent!: number;
  @IsInt() bounced!: number;
  @IsInt() complained!: number;
  @Share() bounceRate!: number;
  @Share() complaintRate!: number;
  @DateTime('When the project was suspended.') createdAt!: Date;
  @NullableDateTime('When an operator lifted it; null while in force.') liftedAt!: Date | null;
  @Nullable('The operator account that lifted it; null when lifted with `npm run herald -- lift-suspension`.') @IsUUID()
  liftedBy!: string | null;
}

class ReputationWindow {
  @IsIn([REPUTATION_WINDOW_DAYS]) days!: number;
  @DateTime(`Start of the window: ${REPUTATION_WINDOW_DAYS} days ago, or the last lift if later.`) since!: Date;
}

class RateThresholds {
  @Share() warning!: number;
  @Share() suspend!: number;
}

class ReputationThresholds {
  @IsInt() minimumSent!: number;
  @ValidateNested() @Type(() => RateThresholds) bounceRate!: RateThresholds;
  @ValidateNested() @Type(() => RateThresholds) complaintRate!: RateThresholds;
}

/** A project's sender reputation: rates over the window, standing and latest suspensions. */
export class SecurityState {
  @IsIn(['OK', 'WARNING', 'SUSPENDED'])
  @JSONSchema({
    description: '`SUSPENDED` while the project is disabled; `WARNING` when a warning threshold is reached (with enough emails sent); else `OK`.',
  })
  status!: string;

  @IsBoolean() disabled!: boolean;
  @Nullable() @IsString() disabledReason!: string | null;
  @ValidateNested() @Type(() => ReputationWindow) window!: ReputationWindow;
  @IsInt() @JSONSchema({ description: 'Emails sent within the window.' }) sent!: number;
  @IsInt() @JSONSchema({ description: 'Of those, how many bounced permanently.' }) bounced!: number;
  @IsInt() @JSONSchema({ description: 'Of those, how many drew a complaint.' }) complained!: number;
  @Share() @JSONSchema({ description: '`bounced / sent`; 0 when nothing was sent.' }) bounceRate!: number;
  @Share() @JSONSchema({ description: '`complained / sent`; 0 when nothing was sent.' }) complaintRate!: number;
  @ValidateNested() @Type(() => ReputationThresholds) thresholds!: ReputationThresholds;
  @ValidateNested({ each: true }) @Type(() => ProjectSuspension) @JSONSchema({ description: 'The ten latest, newest first.' })
  suspensions!: ProjectSuspension[];
}
