import { parseCondition, type Condition } from '../conditions/condition';
import { contactView } from '../contacts/contacts-service';
import { isPlainObject } from '../contacts/data-rules';
import { endpoint, type RouteTable } from '../http/endpoint';
import { BareError } from '../http/errors';
import { OffsetPageQuery } from '../http/page-query';
import { offsetPage, offsetParams } from '../http/pagination';
import { requireText, uuidPathId } from '../http/validate';
import { conditionSchemas } from '../openapi/conditions';
import * as docs from './segments-docs';
import {
  AddSegmentMembersBody,
  CreateSegmentBody,
  RemoveSegmentMembersBody,
  Segment,
  SegmentComputeResult,
  SegmentMemberCount,
  SegmentMembersAdded,
  SegmentMembersRemoved,
  UpdateSegmentBody,
} from './segments-dtos';
import { segmentView, type SegmentInput, type SegmentPatch } from './segments-service';

/**
 * A missing or blank `name` answers the bare `{ error }` (on PATCH it may be left out); a name sent is
 * trimmed in the body, as its length limit applies to the trimmed name.
 */
const requireName = (partial: boolean) => {
  const required = requireText(['name'], partial);
  return (body: unknown) => {
    required(body);
    if (isPlainObject(body) && typeof body.name === 'string') body.name = body.name.trim();
  };
};

/**
 * The condition of a DYNAMIC segment: an object (bare 400 otherwise) holding a valid tree (422 with
 * paths inside it otherwise). A recursive tree is no DTO: it is checked here, after the other fields.
 */
function conditionOf(value: unknown): Condition {
  if (!isPlainObject(value)) throw new BareError('condition is required for a DYNAMIC segment and must be an object');
  return parseCondition(value);
}

/** `POST /segments`: a STATIC segment ignores any `condition`. */
function segmentInput(body: CreateSegmentBody): SegmentInput {
  const type = body.type ?? 'DYNAMIC';
  const { name, description, trackMembership } = body;
  return { name, description, type, trackMembership, ...(type === 'DYNAMIC' ? { condition: conditionOf(body.condition) } : {}) };
}

/** `PATCH /segments/{id}`: `condition` is checked when sent. */
function segmentPatch(body: UpdateSegmentBody): SegmentPatch {
  const { name, description, trackMembership } = body;
  return { name, description, trackMembership, ...(body.condition !== undefined ? { condition: conditionOf(body.condition) } : {}) };
}

const segmentId = (id: string) => uuidPathId(id, 'Segment');

/** Segments (`/segments`): dynamic conditions, static lists and tracked membership. */
export const segmentsRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Segment, SegmentComputeResult, SegmentMembersAdded, SegmentMembersRemoved, SegmentMemberCount],
  // The condition tree is recursive, which no DTO describes: its schemas are written by hand.
  schemas: conditionSchemas(docs.exampleCondition),
  endpoints: [
    endpoint({
      method: 'get',
      path: '/segments',
      credential: 'secret',
      doc: docs.listSegments,
      handle: async ({ services, project }) => (await services.segments.list(project.id)).map(segmentView),
    }),
    endpoint<CreateSegmentBody>({
      method: 'post',
      path: '/segments',
      credential: 'secret',
      body: CreateSegmentBody,
      precheck: requireName(false),
      doc: docs.createSegment,
      handle: async ({ services, project, body }) => segmentView(await services.segments.create(project.id, segmentInput(body))),
    }),
    endpoint({
      method: 'get',
      path: '/segments/{id}',
      credential: 'secret',
      doc: docs.getSegment,
      handle: async ({ services, project, params }) => segmentView(await services.segments.get(project.id, segmentId(params.id))),
    }),
    endpoint<UpdateSegmentBody>({
      method: 'patch',
      path: '/segments/{id}',
      credential: 'secret',
      body: UpdateSegmentBody,
      precheck: requireName(true),
      doc: docs.updateSegment,
      handle: async ({ services, project, params, body }) => {
        const id = segmentId(params.id);
        return segmentView(await services.segments.update(project.id, id, segmentPatch(body)));
      },
    }),
    endpoint({
      method: 'delete',
      path: '/segments/{id}',
      credential: 'secret',
      doc: docs.deleteSegment,
      handle: async ({ services, project, params }) => {
        await services.segments.delete(project.id, segmentId(params.id));
        return { success: true };
      },
    }),
    endpoint<undefined, OffsetPageQuery>({
      method: 'get',
      path: '/segments/{id}/contacts',
      credential: 'secret',
      query: OffsetPageQuery,
      doc: docs.listSegmentContacts,
      handle: async ({ services, project, params, query }) => {
        const page = offsetParams(query);
        const { rows, total } = await services.segments.contactsPage(project.id, segmentId(params.id), page);
        return offsetPage(rows.map(contactView), total, page);
      },
    }),
    endpoint<AddSegmentMembersBody>({
      method: 'post',
      path: '/segments/{id}/members',
      credential: 'secret',
      body: AddSegmentMembersBody,
      doc: docs.addSegmentMembers,
      handle: async ({ services, project, params, body }) => services.segments.addMembers(project.id, segmentId(params.id), body),
    }),
    endpoint<RemoveSegmentMembersBody>({
      method: 'delete',
      path: '/segments/{id}/members',
      credential: 'secret',
      body: RemoveSegmentMembersBody,
      doc: docs.removeSegmentMembers,
      handle: async ({ services, project, params, body }) => services.segments.removeMembers(project.id, segmentId(params.id), body.emails),
    }),
    endpoint({
      method: 'post',
      path: '/segments/{id}/compute',
      credential: 'secret',
      doc: docs.computeSegment,
      handle: async ({ services, project, params }) => services.segments.compute(project.id, segmentId(params.id)),
    }),
    endpoint({
      method: 'post',
      path: '/segments/{id}/refresh',
      credential: 'secret',
      doc: docs.refreshSegmentCount,
      handle: async ({ services, project, params }) => services.segments.refresh(project.id, segmentId(params.id)),
    }),
  ],
};
