import { Equals, IsEmail, IsIn, IsInt, IsNumber, IsOptional, IsString, IsUUID, Max, Min, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { Type } from 'class-transformer';
import { CAMPAIGN_STATUSES } from '../entities/campaign';
import { IsDateTime, Nullable, NullableDateTime } from '../http/validate';
import { CursorPageQuery } from '../http/page-query';
import { MAX_PAGE_SIZE } from '../http/pagination';
import { ACTIVITY_TYPES, type ActivityType } from './activity-service';
import { SERIES_INTERVALS, TOP_CAMPAIGN_METRICS } from './analytics-queries';

/** The `days` parameter's schema: an integer clamped to 1..`max`, 30 when absent. */
const days = (max: number, extra = '') =>
  JSONSchema({
    description: `How many days back, default 30; clamped to 1..${max}.${extra} Anything but an integer answers 400.`,
    type: 'integer',
    minimum: 1,
    maximum: max,
    default: 30,
  });

/** The `limit` parameter's schema: an integer clamped to 1..100, `fallback` when absent. */
const limit = (fallback: number) =>
  JSONSchema({
    description: `How many entries, default ${fallback}; clamped to 1..${MAX_PAGE_SIZE}. Anything but an integer answers 400.`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: fallback,
  });

/** `GET /activity`: the filters, read by the handler (any bad value answers 400). */
export class ActivityFeedQuery extends CursorPageQuery {
  @IsOptional() @IsString() @JSONSchema({ description: 'Only entries of this type; any other value answers 400.', enum: [...ACTIVITY_TYPES] })
  type?: string;

  @IsOptional() @IsString() @JSONSchema({ description: "Only this contact's entries; not a UUID answers 400.", format: 'uuid' })
  contactId?: string;

  @IsOptional() @IsString() @JSONSchema({ description: "Only entries about this campaign's emails; not a UUID answers 400.", format: 'uuid' })
  campaignId?: string;
}

/** `GET /activity/stats`. */
export class ActivityStatsQuery {
  @IsOptional() @IsString() @days(365) days?: string;
}

/** `GET /analytics/timeseries`. */
export class AnalyticsTimeseriesQuery {
  @IsOptional() @IsString() @days(365, ' With `interval=hour` it is clamped to 1..7 (at most 168 points).') days?: string;

  @IsOptional() @IsString()
  @JSONSchema({ description: '`day` (default) or `hour`; anything else answers 400.', enum: [...SERIES_INTERVALS], default: 'day' })
  interval?: string;
}

/** `GET /analytics/top-campaigns`. */
export class AnalyticsTopCampaignsQuery {
  @IsOptional() @IsString()
  @JSONSchema({ description: '`sent` (default), `opened` or `clicked`; anything else answers 400.', enum: [...TOP_CAMPAIGN_METRICS], default: 'sent' })
  metric?: string;

  @IsOptional() @IsString() @limit(10) limit?: string;
}

/** `GET /analytics/campaign-stats`. */
export class AnalyticsCampaignStatsQuery {
  @IsOptional() @IsString() @limit(20) limit?: string;
}

/** `GET /analytics/top-events`. */
export class AnalyticsTopEventsQuery {
  @IsOptional() @IsString() @limit(10) limit?: string;
}

/** A count, never negative. */
const Count = () => (target: object, key: string) => {
  Min(0)(target, key);
  IsInt()(target, key);
};

/** A rate between 0 and 1. */
const Rate = (description: string) => (target: object, key: string) => {
  IsNumber()(target, key);
  Min(0)(target, key);
  Max(1)(target, key);
  JSONSchema({ description })(target, key);
};

class ActivityContact {
  @IsUUID() id!: string;
  @IsEmail() email!: string;
}

/** One entry of the activity feed: an `email.*` event. */
export class Activity {
  @IsUUID() @JSONSchema({ description: 'The id of the event the entry is.' }) id!: string;
  @IsIn(ACTIVITY_TYPES) type!: ActivityType;
  @Nullable('The contact; null for an event without one.') @ValidateNested() @Type(() => ActivityContact)
  contact!: ActivityContact | null;
  @Nullable() @IsUUID() emailId!: string | null;
  @Nullable('The campaign the email belongs to, if any.') @IsUUID() campaignId!: string | null;
  @Nullable() @IsString() subject!: string | null;
  @IsDateTime() createdAt!: Date;
}

/** Milestone counts of the emails of the last days. */
export class ActivityStats {
  @Count() sent!: number;
  @Count() delivered!: number;
  @Count() opened!: number;
  @Count() clicked!: number;
  @Count() bounced!: number;
  @Count() complained!: number;
  @Count() received!: number;
}

/** How many feed entries the last 24 hours hold. */
export class RecentActivityCount {
  @Count() count!: number;
}

/** The activity types present. */
export class ActivityTypes {
  @IsIn(ACTIVITY_TYPES, { each: true }) types!: ActivityType[];
}

class ActivityUpcomingCampaign {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @Equals('SCHEDULED') status!: 'SCHEDULED';
  @IsDateTime() scheduledFor!: Date;
}

class ActivityUpcomingExecution {
  @IsUUID() id!: string;
  @IsUUID() workflowId!: string;
  @IsString() workflowName!: string;
  @Nullable() @IsUUID() contactId!: string | null;
  @Nullable() @IsUUID() currentStepId!: string | null;
  @IsDateTime() startedAt!: Date;
}

/** Scheduled campaigns and waiting workflow executions. */
export class UpcomingActivity {
  @ValidateNested({ each: true }) @Type(() => ActivityUpcomingCampaign) campaigns!: ActivityUpcomingCampaign[];
  @ValidateNested({ each: true }) @Type(() => ActivityUpcomingExecution) executions!: ActivityUpcomingExecution[];
}

class AnalyticsSeriesPoint {
  @IsDateTime() date!: Date;
  @Count() sent!: number;
  @Count() delivered!: number;
  @Count() opened!: number;
  @Count() clicked!: number;
  @Count() bounced!: number;
}

/** The email time series, oldest point first. */
export class AnalyticsTimeseries {
  @ValidateNested({ each: true }) @Type(() => AnalyticsSeriesPoint) data!: AnalyticsSeriesPoint[];
}

/** A campaign's counters and open and click rates. */
class AnalyticsTopCampaign {
  @IsUUID() id!: string;
  @IsString() name!: string;
  @Count() sent!: number;
  @Count() delivered!: number;
  @Count() @JSONSchema({ description: 'Emails opened at least once.' }) opened!: number;
  @Count() @JSONSchema({ description: 'Emails clicked at least once.' }) clicked!: number;
  @Rate('opened / delivered; 0 when nothing was delivered.') openRate!: number;
  @Rate('clicked / delivered; 0 when nothing was delivered.') clickRate!: number;
}

/** The campaigns with the highest counter. */
export class AnalyticsTopCampaigns {
  @ValidateNested({ each: true }) @Type(() => AnalyticsTopCampaign) data!: AnalyticsTopCampaign[];
}

/** A campaign's counters, rates and status. */
export class CampaignStats extends AnalyticsTopCampaign {
  @IsIn(CAMPAIGN_STATUSES) status!: string;
  @Count() totalRecipients!: number;
  @Count() bounced!: number;
  @Count() complained!: number;
  @Rate('bounced / sent; 0 when nothing was sent.') bounceRate!: number;
  @NullableDateTime() sentAt!: Date | null;
}

/** The newest campaigns' counters and rates. */
export class AnalyticsCampaignStatsList {
  @ValidateNested({ each: true }) @Type(() => CampaignStats) data!: CampaignStats[];
}

class AnalyticsTopEvent {
  @IsString() name!: string;
  @Count() count!: number;
}

/** The most frequent tracked event names. */
export class AnalyticsTopEvents {
  @ValidateNested({ each: true }) @Type(() => AnalyticsTopEvent) data!: AnalyticsTopEvent[];
}
