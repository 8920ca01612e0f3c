import type { DataSource, EntityManager } from 'typeorm';
import type { Condition } from '../conditions/condition';
import { assertVerifiedSender } from '../domains/sender-check';
import type { AudienceType, Campaign, CampaignStatus } from '../entities/campaign';
import type { EmailType } from '../entities/template';
import { conflict, validationError } from '../http/errors';
import type { OffsetParams } from '../http/pagination';
import { assertTemplateSyntax } from '../templates/templates-service';
import { findSegment } from './audience-queries';
import { campaignsPage, deleteCampaign, findCampaign, insertCampaign, saveCampaign, type CampaignFilter } from './campaigns-queries';

/** A campaign as the API shows it. */
export function campaignView(campaign: Campaign) {
  return {
    id: campaign.id,
    name: campaign.name,
    description: campaign.description,
    subject: campaign.subject,
    body: campaign.body,
    from: campaign.from,
    fromName: campaign.fromName,
    replyTo: campaign.replyTo,
    type: campaign.type,
    status: campaign.status,
    audienceType: campaign.audienceType,
    segmentId: campaign.segmentId,
    audienceCondition: campaign.audienceCondition,
    scheduledFor: campaign.scheduledFor,
    totalRecipients: campaign.totalRecipients,
    sentCount: campaign.sentCount,
    deliveredCount: campaign.deliveredCount,
    openedCount: campaign.openedCount,
    clickedCount: campaign.clickedCount,
    bouncedCount: campaign.bouncedCount,
    complainedCount: campaign.complainedCount,
    stoppedReason: campaign.stoppedReason,
    projectId: campaign.projectId,
    sentAt: campaign.sentAt,
    createdAt: campaign.createdAt,
    updatedAt: campaign.updatedAt,
  };
}

/** The fields a caller sets on a campaign, already validated at the edge. */
export interface CampaignInput {
  name: string;
  description?: string | null;
  subject: string;
  body: string;
  from: string;
  fromName?: string | null;
  replyTo?: string | null;
  type?: EmailType;
  audienceType: AudienceType;
  segmentId?: string | null;
  audienceCondition?: Condition | null;
}

/** `GET /campaigns/{id}/stats`: counters and rates (0..1; open and click over delivered, bounce over sent). */
export interface CampaignStats {
  totalRecipients: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  bounced: number;
  complained: number;
  openRate: number;
  clickRate: number;
  bounceRate: number;
}

/** The states in which a campaign's content may still change. */
const EDITABLE: CampaignStatus[] = ['DRAFT', 'SCHEDULED'];
/** The states in which its workflow is running. */
export const ACTIVE: CampaignStatus[] = ['SCHEDULED', 'SENDING'];

const rate = (part: number, whole: number) => (whole > 0 ? Math.min(1, part / whole) : 0);

/** A 409 INVALID_STATE for an action the campaign's status does not allow. */
export const invalidState = (campaign: Campaign, action: string) =>
  conflict(`A ${campaign.status} campaign cannot be ${action}`, 'INVALID_STATE', { status: campaign.status });

/**
 * Checks what every saved campaign must satisfy, in the order a caller fixes them: its
 * audience (segment of the project, or a condition), the Liquid syntax, then the sender
 * domain (403).
 */
export async function assertSendable(manager: EntityManager, projectId: string, campaign: Omit<CampaignInput, 'name'>): Promise<void> {
  if (campaign.audienceType === 'SEGMENT') {
    if (!campaign.segmentId) {
      throw validationError([{ field: 'segmentId', code: 'required', message: 'segmentId is required when audienceType is SEGMENT' }]);
    }
    if (!(await findSegment(manager, projectId, campaign.segmentId))) {
      throw validationError([{ field: 'segmentId', code: 'not_found', message: 'No segment with this id in the project', received: campaign.segmentId }]);
    }
  }
  if (campaign.audienceType === 'FILTERED' && !campaign.audienceCondition) {
    throw validationError([{ field: 'audienceCondition', code: 'required', message: 'audienceCondition is required when audienceType is FILTERED' }]);
  }
  assertTemplateSyntax(campaign);
  await assertVerifiedSender(manager, projectId, campaign.from);
}

/** Keeps only the audience fields the audience type uses. */
function normalised<T extends Partial<CampaignInput>>(input: T): T {
  return {
    ...input,
    segmentId: input.audienceType === 'SEGMENT' ? input.segmentId ?? null : null,
    audienceCondition: input.audienceType === 'FILTERED' ? input.audienceCondition ?? null : null,
  };
}

/** Campaigns of a project: the checks on save, their storage and their counters. */
export class CampaignsService {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the project's campaigns, filtered and sorted. */
  list(projectId: string, filter: CampaignFilter, page: OffsetParams): Promise<{ rows: Campaign[]; total: number }> {
    return campaignsPage(this.dataSource.manager, projectId, filter, page);
  }

  /** One campaign of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Campaign> {
    return findCampaign(this.dataSource.manager, projectId, id);
  }

  /** Creates a DRAFT campaign after checking its audience, syntax and sender domain. */
  async create(projectId: string, input: CampaignInput): Promise<Campaign> {
    const fields = normalised(input);
    return this.dataSource.transaction(async (manager) => {
      await assertSendable(manager, projectId, fields);
      return insertCampaign(manager, {
        projectId,
        name: fields.name,
        description: fields.description ?? null,
        subject: fields.subject,
        body: fields.body,
        from: fields.from,
        fromName: fields.fromName ?? null,
        replyTo: fields.replyTo ?? null,
        type: fields.type ?? 'MARKETING',
        status: 'DRAFT',
        audienceType: fields.audienceType,
        segmentId: fields.segmentId ?? null,
        audienceCondition: fields.audienceCondition ?? null,
        scheduledFor: null,
        totalRecipients: 0,
        sentCount: 0,
        deliveredCount: 0,
        openedCount: 0,
        clickedCount: 0,
        bouncedCount: 0,
        complainedCount: 0,
        stoppedReason: null,
        sentAt: null,
      });
    });
  }

  /** Changes the fields given on a DRAFT or SCHEDULED campaign; the result is checked as on create. */
  async update(projectId: string, id: string, patch: Partial<CampaignInput>): Promise<Campaign> {
    return this.dataSource.transaction(async (manager) => {
      const campaign = await findCampaign(manager, projectId, id, true);
      if (!EDITABLE.includes(campaign.status)) throw invalidState(campaign, 'edited');
      const merged = normalised({ ...campaign, ...patch });
      await assertSendable(manager, projectId, merged);
      Object.assign(campaign, merged);
      return saveCampaign(manager, campaign);
    });
  }

  /** Deletes a campaign that is not SCHEDULED or SENDING (cancel it first); its emails stay. */
  async delete(projectId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const campaign = await findCampaign(manager, projectId, id, true);
      if (ACTIVE.includes(campaign.status)) throw invalidState(campaign, 'deleted; cancel it first');
      await deleteCampaign(manager, id);
    });
  }

  /** Copies a campaign's content and audience as a new DRAFT named "<name> (copy)", checked as on create. */
  async duplicate(projectId: string, id: string): Promise<Campaign> {
    const source = await this.get(projectId, id);
    return this.create(projectId, { ...source, name: `${source.name} (copy)` });
  }

  /** The campaign's counters and rates. */
  async stats(projectId: string, id: string): Promise<CampaignStats> {
    const campaign = await this.get(projectId, id);
    return {
      totalRecipients: campaign.totalRecipients,
      sent: campaign.sentCount,
      delivered: campaign.deliveredCount,
      opened: campaign.openedCount,
      clicked: campaign.clickedCount,
      bounced: campaign.bouncedCount,
      complained: campaign.complainedCount,
      openRate: rate(campaign.openedCount, campaign.deliveredCount),
      clickRate: rate(campaign.clickedCount, campaign.deliveredCount),
      bounceRate: rate(campaign.bouncedCount, campaign.sentCount),
    };
  }
}
