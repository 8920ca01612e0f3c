import { Router } from 'express';
import { ACTIVITY_TYPES, type ActivityService } from './activity-service';
import type { FeedCursor } from './activity-queries';
import { SERIES_INTERVALS, TOP_CAMPAIGN_METRICS } from './analytics-queries';
import type { Cursors } from '../http/cursors';
import { cursorPage, cursorParams, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/pagination';
import { choiceParam, intParam, uuidParam, type Query } from '../http/query';

const DEFAULT_DAYS = 30;
const MAX_DAYS = 365;
/** The hourly series covers at most a week (168 points). */
const MAX_HOURLY_DAYS = 7;
const DEFAULT_TOP = 10;

/** A count parameter clamped to 1..`max`, `fallback` when absent; anything but an integer is a 400. */
const count = (query: Query, name: string, fallback: number, max: number) => intParam(query, name, { fallback, min: 1, max, clamp: true });

/** The activity feed (`/activity/*`) and the dashboard analytics (`/analytics/*`). */
export function activityRouter(activity: ActivityService, cursors: Cursors): Router {
  const router = Router();
  const feedCursors = cursors.for<FeedCursor>('activity');

  router.get('/activity', async (req, res) => {
    const query = req.query as Query;
    const filter = {
      type: choiceParam(query, 'type', ACTIVITY_TYPES),
      contactId: uuidParam(query, 'contactId'),
      campaignId: uuidParam(query, 'campaignId'),
    };
    const page = cursorParams(query, feedCursors);
    const { rows, countTotal } = await activity.feed(req.project!.id, filter, page);
    const result = await cursorPage(rows, page, (row) => row.position, countTotal);
    res.json({ ...result, data: result.data.map((row) => row.entry) });
  });

  router.get('/activity/stats', async (req, res) => {
    res.json(await activity.stats(req.project!.id, count(req.query, 'days', DEFAULT_DAYS, MAX_DAYS)));
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
    const days = count(req.query, 'days', DEFAULT_DAYS, interval === 'hour' ? MAX_HOURLY_DAYS : MAX_DAYS);
    res.json(await activity.timeseries(req.project!.id, interval, interval === 'hour' ? days * 24 : days));
  });

  router.get('/analytics/top-campaigns', async (req, res) => {
    const metric = choiceParam(req.query, 'metric', TOP_CAMPAIGN_METRICS, 'sent')!;
    res.json(await activity.topCampaigns(req.project!.id, metric, count(req.query, 'limit', DEFAULT_TOP, MAX_PAGE_SIZE)));
  });

  router.get('/analytics/campaign-stats', async (req, res) => {
    res.json(await activity.campaignStats(req.project!.id, count(req.query, 'limit', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)));
  });

  router.get('/analytics/top-events', async (req, res) => {
    res.json(await activity.topEvents(req.project!.id, count(req.query, 'limit', DEFAULT_TOP, MAX_PAGE_SIZE)));
  });

  return router;
}
