import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import type { Condition } from '../conditions/condition';
import { normalizeEmail, type ContactsService } from '../contacts/contacts-service';
import { parseDataPatch } from '../contacts/data-rules';
import type { Segment, SegmentType } from '../entities/segment';
import { ApiError, badRequest, conflict } from '../http/errors';
import type { OffsetParams } from '../http/pagination';
import { membershipEvents, type ComputeResult } from './membership';
import * as queries from './segments-queries';
import { computeSegment } from '../../workflows/segments';
import { segmentSummary, segmentWorkflowId } from '../../workflows/shared';

/** A segment as the API shows it. */
export function segmentView(segment: Segment) {
  return {
    id: segment.id,
    name: segment.name,
    description: segment.description,
    type: segment.type,
    condition: segment.condition,
    trackMembership: segment.trackMembership,
    memberCount: segment.memberCount,
    projectId: segment.projectId,
    createdAt: segment.createdAt,
    updatedAt: segment.updatedAt,
  };
}

/** A new segment, validated at the edge; `condition` is set for DYNAMIC only. */
export interface SegmentInput {
  name: string;
  description?: string | null;
  type: SegmentType;
  condition?: Condition;
  trackMembership?: boolean;
}

/** The fields a PATCH changes; `condition` only applies to DYNAMIC segments. */
export type SegmentPatch = Partial<Pick<SegmentInput, 'name' | 'description' | 'condition' | 'trackMembership'>>;

/** Emails to add to a STATIC segment, optionally creating the contacts that do not exist. */
export interface MembersInput {
  emails: string[];
  createMissing?: boolean;
  subscribed?: boolean;
}

/**
 * Segments of a project: DYNAMIC ones are a condition evaluated live, STATIC ones a stored list.
 * Tracked DYNAMIC segments also keep a stored membership (see SegmentMembership).
 */
export class SegmentsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsService,
    private readonly temporal: Client | undefined,
    private readonly taskQueue: string,
  ) {}

  /** Every segment of the project, newest first. */
  list(projectId: string): Promise<Segment[]> {
    return queries.projectSegments(this.dataSource.manager, projectId);
  }

  /** One segment of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Segment> {
    return queries.findSegment(this.dataSource.manager, projectId, id);
  }

  /** Creates a segment with a slug unique in the project and its member count. */
  async create(projectId: string, input: SegmentInput): Promise<Segment> {
    const segment = queries.newSegment(this.dataSource.manager, {
      projectId,
      name: input.name,
      description: input.description ?? null,
      type: input.type,
      condition: input.type === 'DYNAMIC' ? input.condition! : null,
      trackMembership: input.trackMembership ?? false,
      memberCount: 0,
    });
    if (segment.type === 'DYNAMIC') segment.memberCount = await this.countLive(segment);
    return this.dataSource.transaction(async (manager) => {
      segment.slug = await queries.allocateSlug(manager, projectId, input.name);
      return queries.saveSegment(manager, segment);
    });
  }

  /**
   * Changes name, description, condition (DYNAMIC) or trackMembership. The slug, and with it the
   * names of the entry and exit events, stays. Turning tracking on or off forgets the stored
   * membership, so the next computation fires an entry event for every member.
   */
  async update(projectId: string, id: string, patch: SegmentPatch): Promise<Segment> {
    return this.dataSource.transaction(async (manager) => {
      const segment = await queries.findSegment(manager, projectId, id, true);
      if (patch.name !== undefined) segment.name = patch.name;
      if (patch.description !== undefined) segment.description = patch.description;
      const dynamic = segment.type === 'DYNAMIC';
      const recount = dynamic && patch.condition !== undefined;
      if (recount) segment.condition = patch.condition!;
      if (patch.trackMembership !== undefined && patch.trackMembership !== segment.trackMembership) {
        segment.trackMembership = patch.trackMembership;
        if (dynamic) await queries.clearMembers(manager, segment.id);
      }
      if (recount) segment.memberCount = await queries.countContacts(manager, await queries.segmentContacts(manager, segment));
      return queries.saveSegment(manager, segment);
    });
  }

  /** Deletes a segment; 409 SEGMENT_IN_USE while a SCHEDULED or SENDING campaign uses it. */
  async delete(projectId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await queries.findSegment(manager, projectId, id, true);
      if (await queries.segmentInUse(manager, id)) {
        throw conflict('The segment is used by a scheduled or sending campaign; cancel the campaign first', 'SEGMENT_IN_USE', { segmentId: id });
      }
      await queries.deleteSegment(manager, id);
    });
  }

  /** A page of the segment's contacts: matching now (DYNAMIC) or stored (STATIC), newest first. */
  async contactsPage(projectId: string, id: string, page: OffsetParams) {
    const segment = await this.get(projectId, id);
    return queries.contactsPage(this.dataSource.manager, await queries.segmentContacts(this.dataSource.manager, segment), page);
  }

  /** Adds contacts by email to a STATIC segment, creating missing ones when asked. */
  async addMembers(projectId: string, id: string, input: MembersInput) {
    const segment = await this.staticSegment(projectId, id);
    const requested = distinctEmails(input.emails);
    return this.contacts.transaction(async (tx) => {
      const ids = await queries.contactIdsByEmail(tx.manager, projectId, [...requested.keys()]);
      const missing = [...requested.keys()].filter((email) => !ids.has(email));
      let created = 0;
      if (input.createMissing && missing.length > 0) {
        const items = missing.map((email) => ({ email, patch: parseDataPatch(undefined), subscribed: input.subscribed }));
        for (const outcome of await this.contacts.upsertMany(tx, projectId, items, true)) {
          ids.set(outcome.email, outcome.id);
          if (outcome.isNew) created += 1;
        }
      }
      const memberIds = [...requested.keys()].flatMap((email) => ids.get(email) ?? []);
      const added = await queries.insertMembers(tx.manager, segment.id, memberIds);
      if (segment.trackMembership) await tx.record(membershipEvents(segment, 'entry', added));
      await queries.recountMembers(tx.manager, segment.id);
      return {
        added: added.length,
        alreadyMembers: memberIds.length - added.length,
        created,
        notFound: input.createMissing ? [] : missing.map((email) => requested.get(email)!),
      };
    });
  }

  /** Removes contacts by email from a STATIC segment. */
  async removeMembers(projectId: string, id: string, emails: string[]) {
    const segment = await this.staticSegment(projectId, id);
    return this.contacts.transaction(async (tx) => {
      const removed = await queries.deleteMembersByEmail(tx.manager, segment, [...distinctEmails(emails).keys()]);
      if (segment.trackMembership) await tx.record(membershipEvents(segment, 'exit', removed));
      await queries.recountMembers(tx.manager, segment.id);
      return { removed: removed.length };
    });
  }

  /** Recounts the segment (matching contacts, or stored members) without touching membership. */
  async refresh(projectId: string, id: string): Promise<{ memberCount: number }> {
    const segment = await this.get(projectId, id);
    if (segment.type === 'STATIC') return { memberCount: await queries.recountMembers(this.dataSource.manager, segment.id) };
    const memberCount = await this.countLive(segment);
    await queries.setMemberCount(this.dataSource.manager, segment.id, memberCount);
    return { memberCount };
  }

  /**
   * Runs the computation workflow `segment/<id>` of a tracked DYNAMIC segment and answers with its
   * result; when one is already running, waits for that one instead.
   */
  async compute(projectId: string, id: string): Promise<ComputeResult> {
    const segment = await this.get(projectId, id);
    if (segment.type !== 'DYNAMIC' || !segment.trackMembership) {
      throw badRequest('Only a DYNAMIC segment with trackMembership has a stored membership to compute; use refresh to count');
    }
    if (!this.temporal) throw unavailable();
    const workflowId = segmentWorkflowId(id);
    try {
      const handle = await this.temporal.workflow.start(computeSegment, { taskQueue: this.taskQueue, workflowId, args: [id], staticSummary: segmentSummary(segment.name) });
      return await handle.result();
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return await this.temporal.workflow.getHandle<typeof computeSegment>(workflowId).result();
    }
  }

  private async countLive(segment: Segment): Promise<number> {
    return queries.countContacts(this.dataSource.manager, await queries.segmentContacts(this.dataSource.manager, segment));
  }

  private async staticSegment(projectId: string, id: string): Promise<Segment> {
    const segment = await this.get(projectId, id);
    if (segment.type !== 'STATIC') throw badRequest('Members are managed on STATIC segments only; a DYNAMIC segment follows its condition');
    return segment;
  }
}

/** The emails of a request by their normalised form, each with the first spelling sent. */
function distinctEmails(emails: string[]): Map<string, string> {
  const distinct = new Map<string, string>();
  for (const email of emails) if (!distinct.has(normalizeEmail(email))) distinct.set(normalizeEmail(email), email);
  return distinct;
}

const unavailable = () => new ApiError(503, 'SERVICE_UNAVAILABLE', 'Segment computation is unavailable right now; try again shortly');
