import { parseCondition } from '../conditions/condition';
import { isPlainObject } from '../contacts/data-rules';
import { CAMPAIGN_STATUSES, type CampaignStatus } from '../entities/campaign';
import { endpoint, type RouteTable } from '../http/endpoint';
import { badRequest, validationError } from '../http/errors';
import { offsetPage, offsetParams } from '../http/pagination';
import { textParam } from '../http/query';
import { uuidPathId } from '../http/validate';
import { CAMPAIGN_SORTS } from './campaigns-queries';
import * as docs from './campaigns-docs';
import {
  Campaign,
  CampaignListQuery,
  CampaignSendResult,
  CampaignStatsSummary,
  CreateCampaignBody,
  CreatedCampaign,
  SendCampaignBody,
  TestCampaignBody,
  UpdateCampaignBody,
} from './campaigns-dtos';
import { campaignView, type CampaignInput } from './campaigns-service';

const REQUIRED = ['name', 'subject', 'body', 'from', 'audienceType'] as const;
const FIELDS = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type', 'audienceType', 'segmentId'] as const;

/** On create, the SPEC's required fields missing or null are one 422 listing each as `required`, before any other check. */
function requireFields(body: unknown): void {
  const input = isPlainObject(body) ? body : {};
  const missing = REQUIRED.filter((field) => input[field] === undefined || input[field] === null);
  if (missing.length > 0) throw validationError(missing.map((field) => ({ field, code: 'required', message: `${field} is required` })));
}

/** The fields sent, `name` and `from` trimmed; `audienceCondition` is checked as a condition tree (422 with paths inside it). */
function campaignInput(body: CreateCampaignBody | UpdateCampaignBody): Partial<CampaignInput> {
  const input: Record<string, unknown> = {};
  for (const field of FIELDS) if (body[field] !== undefined) input[field] = body[field];
  for (const field of ['name', 'from'] as const) if (typeof input[field] === 'string') input[field] = (input[field] as string).trim();
  if (body.audienceCondition !== undefined) {
    input.audienceCondition = body.audienceCondition === null ? null : parseCondition(body.audienceCondition, 'audienceCondition');
  }
  return input as Partial<CampaignInput>;
}

/** `status` of the list, case-insensitive; anything else is a 400. */
function statusFilter(query: CampaignListQuery): CampaignStatus | undefined {
  if (query.status === undefined || query.status === '') return undefined;
  const status = CAMPAIGN_STATUSES.find((candidate) => candidate === textParam(query, 'status').toUpperCase());
  if (!status) throw badRequest(`status must be one of ${CAMPAIGN_STATUSES.join(', ')}`, { details: { status: query.status } });
  return status;
}

/** `scheduledFor` of a send: omitted or null is now; anything a date parser reads is a time; the rest is a 400. */
function scheduledFor({ scheduledFor: value }: SendCampaignBody): Date | null {
  if (value === undefined || value === null) return null;
  const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw badRequest('scheduledFor is not a date; send an ISO 8601 date-time such as 2030-01-01T09:00:00Z', { details: { scheduledFor: value } });
  }
  return date;
}

const campaignId = (id: string) => uuidPathId(id, 'Campaign');

/** Campaigns (`/campaigns`): one email to an audience, sent now or scheduled, with its counters. */
export const campaignsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Campaign, CreatedCampaign, CampaignSendResult, CampaignStatsSummary],
  endpoints: [
    endpoint<undefined, CampaignListQuery>({
      method: 'get',
      path: '/campaigns',
      credential: 'secret',
      query: CampaignListQuery,
      doc: docs.listCampaigns,
      handle: async ({ services, project, query }) => {
        const page = offsetParams(query);
        const filter = {
          status: statusFilter(query),
          search: textParam(query, 'search') || undefined,
          sort: CAMPAIGN_SORTS.find((sort) => sort === textParam(query, 'sort')) ?? 'createdAt',
          dir: textParam(query, 'dir') === 'asc' ? ('asc' as const) : ('desc' as const),
        };
        const { rows, total } = await services.campaigns.list(project.id, filter, page);
        return offsetPage(rows.map(campaignView), total, page);
      },
    }),
    endpoint<CreateCampaignBody>({
      method: 'post',
      path: '/campaigns',
      credential: 'secret',
      body: CreateCampaignBody,
      precheck: requireFields,
      doc: docs.createCampaign,
      handle: async ({ services, project, body }) => ({
        success: true,
        data: campaignView(await services.campaigns.create(project.id, campaignInput(body) as CampaignInput)),
      }),
    }),
    endpoint({
      method: 'get',
      path: '/campaigns/{id}',
      credential: 'secret',
      doc: docs.getCampaign,
      handle: async ({ services, project, params }) => campaignView(await services.campaigns.get(project.id, campaignId(params.id))),
    }),
    endpoint<UpdateCampaignBody>({
      method: 'put',
      path: '/campaigns/{id}',
      credential: 'secret',
      body: UpdateCampaignBody,
      doc: docs.updateCampaign,
      handle: async ({ services, project, params, body }) => {
        const id = campaignId(params.id);
        return campaignView(await services.campaigns.update(project.id, id, campaignInput(body)));
      },
    }),
    endpoint({
      method: 'delete',
      path: '/campaigns/{id}',
      credential: 'secret',
      doc: docs.deleteCampaign,
      handle: async ({ services, project, params }) => {
        await services.campaigns.delete(project.id, campaignId(params.id));
        return { success: true };
      },
    }),
    endpoint({
      method: 'post',
      path: '/campaigns/{id}/duplicate',
      credential: 'secret',
      doc: docs.duplicateCampaign,
      handle: async ({ services, project, params }) => campaignView(await services.campaigns.duplicate(project.id, campaignId(params.id))),
    }),
    endpoint<SendCampaignBody>({
      method: 'post',
      path: '/campaigns/{id}/send',
      credential: 'secret',
      body: SendCampaignBody,
      doc: docs.sendCampaign,
      handle: async ({ services, project, params, body }) => {
        const id = campaignId(params.id);
        const { campaign, message } = await services.campaignSending.send(project.id, id, scheduledFor(body));
        return { success: true, data: { id, name: campaign.name, status: campaign.status, scheduledFor: campaign.scheduledFor }, message };
      },
    }),
    endpoint({
      method: 'post',
      path: '/campaigns/{id}/cancel',
      credential: 'secret',
      doc: docs.cancelCampaign,
      handle: async ({ services, project, params }) => campaignView(await services.campaignSending.cancel(project.id, campaignId(params.id))),
    }),
    endpoint<TestCampaignBody>({
      method: 'post',
      path: '/campaigns/{id}/test',
      credential: 'secret',
      body: TestCampaignBody,
      doc: docs.testCampaign,
      handle: async ({ services, project, params, body }) => {
        const id = campaignId(params.id);
        await services.campaignSending.test(project.id, id, body.email);
        return { success: true };
      },
    }),
    endpoint({
      method: 'get',
      path: '/campaigns/{id}/stats',
      credential: 'secret',
      doc: docs.getCampaignStats,
      handle: async ({ services, project, params }) => services.campaigns.stats(project.id, campaignId(params.id)),
    }),
  ],
};
