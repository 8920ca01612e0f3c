import { IsEmail, IsIn, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { Router } from 'express';
import type { CampaignSending } from './campaign-sending';
import {
  CAMPAIGN_SORTS,
  campaignView,
  type CampaignInput,
  type CampaignListQuery,
  type CampaignsService,
} from './campaigns-service';
import { parseCondition } from '../conditions/condition';
import { isPlainObject } from '../contacts/data-rules';
import { AUDIENCE_TYPES, CAMPAIGN_STATUSES, type AudienceType } from '../entities/campaign';
import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { badRequest, notFound, validationError } from '../http/errors';
import { offsetPage, offsetParams } from '../http/pagination';
import { textParam } from '../http/query';
import { isUuid, Optional, parseBody } from '../http/validate';

const nonBlank = { message: '$property must not be empty' };

/** The campaign fields' types and limits; which ones are required is checked before. */
class CampaignFields {
  @Optional() @IsString() @MinLength(1, nonBlank) @MaxLength(255) name?: string;
  @IsOptional() @IsString() @MaxLength(2000) description?: string | null;
  @Optional() @IsString() @MinLength(1, nonBlank) @MaxLength(998) @Matches(/^[^\r\n]*$/, { message: 'subject must not contain line breaks' })
  subject?: string;
  @Optional() @IsString() @MinLength(1, nonBlank) body?: string;
  @Optional() @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320) from?: string;
  @IsOptional() @IsString() @MaxLength(255) @Matches(/^[^\r\n]*$/, { message: 'fromName must not contain line breaks' })
  fromName?: string | null;
  @IsOptional() @IsEmail({}, { message: 'replyTo must be a valid email address' }) @MaxLength(320) replyTo?: string | null;
  @Optional() @IsIn(EMAIL_TYPES, { message: `type must be one of ${EMAIL_TYPES.join(', ')}` }) type?: EmailType;
  @Optional() @IsIn(AUDIENCE_TYPES, { message: `audienceType must be one of ${AUDIENCE_TYPES.join(', ')}` }) audienceType?: AudienceType;
  @IsOptional() @IsUUID('all', { message: 'segmentId must be a UUID' }) segmentId?: string | null;
}

const FIELDS = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type', 'audienceType', 'segmentId'] as const;
const REQUIRED = ['name', 'subject', 'body', 'from', 'audienceType'] as const;

/**
 * Validates a campaign body into the fields sent: on create the SPEC's required fields must
 * be there; on PUT any subset may be sent. `audienceCondition` is checked as a condition tree.
 */
function campaignBody(body: unknown, partial: boolean): Partial<CampaignInput> {
  const input = isPlainObject(body) ? body : {};
  if (!partial) {
    const missing = REQUIRED.filter((field) => input[field] === undefined || input[field] === null);
    if (missing.length > 0) {
      throw validationError(missing.map((field) => ({ field, code: 'required', message: `${field} is required` })));
    }
  }
  const fields = parseBody(CampaignFields, input);
  const result: Record<string, unknown> = {};
  for (const field of FIELDS) if (fields[field] !== undefined) result[field] = fields[field];
  for (const field of ['name', 'from'] as const) if (typeof result[field] === 'string') result[field] = (result[field] as string).trim();
  if (input.audienceCondition !== undefined) {
    result.audienceCondition = input.audienceCondition === null ? null : parseCondition(input.audienceCondition, 'audienceCondition');
  }
  return result as Partial<CampaignInput>;
}

/** Filters and order of `GET /campaigns`: an unrecognised `status` is a 400; `sort` and `dir` fall back to the defaults. */
function listQuery(query: Record<string, unknown>): CampaignListQuery {
  let status: CampaignListQuery['status'];
  if (query.status !== undefined && query.status !== '') {
    status = CAMPAIGN_STATUSES.find((candidate) => candidate === textParam(query, 'status').toUpperCase());
    if (!status) throw badRequest(`status must be one of ${CAMPAIGN_STATUSES.join(', ')}`, { details: { status: query.status } });
  }
  const sort = CAMPAIGN_SORTS.find((candidate) => candidate === textParam(query, 'sort')) ?? 'createdAt';
  return { status, search: textParam(query, 'search') || undefined, sort, dir: textParam(query, 'dir') === 'asc' ? 'asc' : 'desc' };
}

/** `scheduledFor` of a send: omitted or null is now; anything a date parser reads is a time; the rest is a 400. */
function scheduledFor(body: unknown): Date | null {
  const value = isPlainObject(body) ? body.scheduledFor : undefined;
  if (value === undefined || value === null) return null;
  const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw badRequest('scheduledFor is not a date; send an ISO 8601 date-time such as 2030-01-01T09:00:00Z', { details: { scheduledFor: value } });
  }
  return date;
}

class TestSend {
  @IsEmail({}, { message: 'email must be a valid email address' }) @MaxLength(320) email: string;
}

const campaignId = (id: string) => {
  if (!isUuid(id)) throw notFound('Campaign');
  return id;
};

/** Campaigns (`/campaigns`): one email to an audience, sent now or scheduled, with its counters. */
export function campaignsRouter(campaigns: CampaignsService, sending: CampaignSending): Router {
  const router = Router();

  router.get('/campaigns', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const page = offsetParams(query);
    const { rows, total } = await campaigns.list(req.project!.id, listQuery(query), page);
    res.json(offsetPage(rows.map(campaignView), total, page));
  });

  router.post('/campaigns', async (req, res) => {
    const campaign = await campaigns.create(req.project!.id, campaignBody(req.body, false) as CampaignInput);
    res.status(201).json({ success: true, data: campaignView(campaign) });
  });

  router.get('/campaigns/:id', async (req, res) => {
    res.json(campaignView(await campaigns.get(req.project!.id, campaignId(req.params.id))));
  });

  router.put('/campaigns/:id', async (req, res) => {
    const id = campaignId(req.params.id);
    res.json(campaignView(await campaigns.update(req.project!.id, id, campaignBody(req.body, true))));
  });

  router.delete('/campaigns/:id', async (req, res) => {
    await campaigns.delete(req.project!.id, campaignId(req.params.id));
    res.json({ success: true });
  });

  router.post('/campaigns/:id/duplicate', async (req, res) => {
    res.status(201).json(campaignView(await campaigns.duplicate(req.project!.id, campaignId(req.params.id))));
  });

  router.post('/campaigns/:id/send', async (req, res) => {
    const id = campaignId(req.params.id);
    const { campaign, message } = await sending.send(req.project!.id, id, scheduledFor(req.body));
    const { name, status } = campaign;
    res.json({ success: true, data: { id, name, status, scheduledFor: campaign.scheduledFor }, message });
  });

  router.post('/campaigns/:id/cancel', async (req, res) => {
    res.json(campaignView(await sending.cancel(req.project!.id, campaignId(req.params.id))));
  });

  router.post('/campaigns/:id/test', async (req, res) => {
    const id = campaignId(req.params.id);
    const { email } = parseBody(TestSend, req.body);
    await sending.test(req.project!.id, id, email);
    res.json({ success: true });
  });

  router.get('/campaigns/:id/stats', async (req, res) => {
    res.json(await campaigns.stats(req.project!.id, campaignId(req.params.id)));
  });

  return router;
}
