import { Router } from 'express';
import { ACTIVITY_TYPES, type ActivityService } from '../activity/activity-service';
import type { FeedCursor } from '../activity/activity-queries';
import { SERIES_INTERVALS, TOP_CAMPAIGN_METRICS } from '../activity/analytics-queries';
import { badRequest } from '../http/errors';
import { cursorPage, cursorParams, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/pagination';
import { isUuid } from '../http/validate';

type Query = Record<string, unknown>;

const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;
/** The hourly series covers at most a week (168 points). */
const MAX_HOURLY_DAYS = 7;
const DEFAULT_TOP = 10;

/** An integer query parameter: `fallback` when absent, clamped to `min..max`; anything but an integer is a 400. */
function intParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) throw badRequest(`${name} must be an integer`);
  return Math.min(Math.max(Number(raw), min), max);
}

/** A query parameter that must be one of `allowed`: `fallback` when absent, a 400 when anything else. */
function choiceParam<T extends string>(query: Query, name: string, allowed: readonly T[], fallback?: T): T | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return fallback;
  const value = allowed.find((candidate) => candidate === raw);
  if (value === undefined) throw badRequest(`${name} must be one of ${allowed.join(', ')}`);
  return value;
}

/** A query parameter that must be a UUID when given. */
function uuidParam(query: Query, name: string): string | undefined {
  const raw = query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !isUuid(raw)) throw badRequest(`${name} must be a UUID`);
  return raw;
}

/** The feed's page request; a cursor that is not a feed position is a 400 like one that does not decode. */
function feedPage(query: Query) {
  const page = cursorParams<FeedCursor>(query);
  const cursor = page.cursor as Partial<FeedCursor> | undefined;
  if (cursor && !(typeof cursor.v === 'string' && /^\d{4}-\d{2}-\d{2} /.test(cursor.v) && typeof cursor.id === 'string' && isUuid(cursor.id))) {
    throw badRequest('The cursor is not valid; pass the cursor from the previous response unchanged');
  }
  return page;
}

/** The activity feed (`/activity/*`) and the dashboard analytics (`/analytics/*`). */
export function activityRouter(activity: ActivityService): Router {
  const router = Router();

  router.get('/activity', async (req, res) => {
    const query = req.query as Query;
    const filter = {
      type: choiceParam(query, 'type', ACTIVITY_TYPES),
      contactId: uuidParam(query, 'contactId'),
      campaignId: uuidParam(query, 'campaignId'),
    };
    const page = feedPage(query);
    const { rows, countTotal } = await activity.feed(req.project!.id, filter, page);
    const result = await cursorPage(rows, page, (row) => row.position, countTotal);
    res.json({ ...result, data: result.data.map((row) => row.entry) });
  });

  router.get('/activity/stats', async (req, res) => {
    res.json(await activity.stats(req.project!.id, intParam(req.query, 'days', DEFAULT_DAYS, 1, MAX_DAYS)));
  });

  router.get('/activity/recent-count', async (req, res) => {
    res.json(await activity.recentCount(req.project!.id));
  });

  router.get('/activity/types', async (req, res) => {
    res.json(await activity.types(req.project!.id));
  });

  router.get('/activity/upcoming', async (req, res) => {
    res.json(await activity.upcoming(req.project!.id));
  });

  router.get('/analytics/timeseries', async (req, res) => {
    const interval = choiceParam(req.query, 'interval', SERIES_INTERVALS, 'day')!;
    const days = intParam(req.query, 'days', DEFAULT_DAYS, 1, interval === 'hour' ? MAX_HOURLY_DAYS : MAX_DAYS);
    res.json(await activity.timeseries(req.project!.id, interval, interval === 'hour' ? days * 24 : days));
  });

  router.get('/analytics/top-campaigns', async (req, res) => {
    const metric = choiceParam(req.query, 'metric', TOP_CAMPAIGN_METRICS, 'sent')!;
    res.json(await activity.topCampaigns(req.project!.id, metric, intParam(req.query, 'limit', DEFAULT_TOP, 1, MAX_PAGE_SIZE)));
  });

  router.get('/analytics/campaign-stats', async (req, res) => {
    res.json(await activity.campaignStats(req.project!.id, intParam(req.query, 'limit', DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE)));
  });

  router.get('/analytics/top-events', async (req, res) => {
    res.json(await activity.topEvents(req.project!.id, intParam(req.query, 'limit', DEFAULT_TOP, 1, MAX_PAGE_SIZE)));
  });

  return router;
}
