import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsEmail, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { Router } from 'express';
import { parseCondition } from '../conditions/condition';
import { contactView } from '../contacts/contacts-service';
import { isPlainObject } from '../contacts/data-rules';
import type { SegmentType } from '../entities/segment';
import { BareError, notFound } from '../http/errors';
import { offsetPage, offsetParams } from '../http/pagination';
import { isUuid, Optional, parseBody } from '../http/validate';
import { segmentView, type SegmentInput, type SegmentPatch, type SegmentsService } from './segments-service';

const SEGMENT_TYPES: SegmentType[] = ['DYNAMIC', 'STATIC'];

/** The segment fields beyond the presence of `name` and `condition` (checked first, with bare errors). */
class SegmentFields {
  @Optional() @IsString() @MaxLength(100) name?: string;
  @IsOptional() @IsString() @MaxLength(500) description?: string | null;
  @Optional() @IsIn(SEGMENT_TYPES, { message: 'type must be DYNAMIC or STATIC' }) type?: SegmentType;
  @Optional() @IsBoolean() trackMembership?: boolean;
}

class MembersBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsEmail({}, { each: true, message: 'each of emails must be a valid email address' })
  emails: string[];
  @Optional() @IsBoolean() createMissing?: boolean;
  @Optional() @IsBoolean() subscribed?: boolean;
}

class RemoveMembersBody {
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(1000) @IsString({ each: true }) emails: string[];
}

/** The `name` of a body, which must be a non-empty string when `required` or when sent (bare 400 otherwise). */
function nameOf(input: Record<string, unknown>, required: boolean): string | undefined {
  if (!required && input.name === undefined) return undefined;
  if (typeof input.name !== 'string' || input.name.trim() === '') throw new BareError('name is required');
  return input.name.trim();
}

/** The condition of a DYNAMIC segment: an object (bare 400 otherwise) holding a valid tree (422 otherwise). */
function conditionOf(value: unknown) {
  if (!isPlainObject(value)) throw new BareError('condition is required for a DYNAMIC segment and must be an object');
  return parseCondition(value);
}

/** Validates `POST /segments`; a STATIC segment ignores any `condition`. */
function createBody(body: unknown): SegmentInput {
  const input = isPlainObject(body) ? body : {};
  const name = nameOf(input, true)!;
  const fields = parseBody(SegmentFields, { ...input, name });
  const type = fields.type ?? 'DYNAMIC';
  return {
    name,
    description: fields.description,
    type,
    trackMembership: fields.trackMembership,
    ...(type === 'DYNAMIC' ? { condition: conditionOf(input.condition) } : {}),
  };
}

/** Validates `PATCH /segments/{id}`; `condition` is checked when sent and applied to DYNAMIC segments only. */
function patchBody(body: unknown): SegmentPatch {
  const input = isPlainObject(body) ? body : {};
  const name = nameOf(input, false);
  const fields = parseBody(SegmentFields, { description: input.description, trackMembership: input.trackMembership, name });
  return {
    name,
    description: fields.description,
    trackMembership: fields.trackMembership,
    ...(input.condition !== undefined ? { condition: conditionOf(input.condition) } : {}),
  };
}

const segmentId = (id: string) => {
  if (!isUuid(id)) throw notFound('Segment');
  return id;
};

/** Segments (`/segments`): dynamic conditions, static lists and tracked membership. */
export function segmentsRouter(segments: SegmentsService): Router {
  const router = Router();

  router.get('/segments', async (req, res) => {
    res.json((await segments.list(req.project!.id)).map(segmentView));
  });

  router.post('/segments', async (req, res) => {
    res.status(201).json(segmentView(await segments.create(req.project!.id, createBody(req.body))));
  });

  router.get('/segments/:id', async (req, res) => {
    res.json(segmentView(await segments.get(req.project!.id, segmentId(req.params.id))));
  });

  router.patch('/segments/:id', async (req, res) => {
    const id = segmentId(req.params.id);
    res.json(segmentView(await segments.update(req.project!.id, id, patchBody(req.body))));
  });

  router.delete('/segments/:id', async (req, res) => {
    await segments.delete(req.project!.id, segmentId(req.params.id));
    res.json({ success: true });
  });

  router.get('/segments/:id/contacts', async (req, res) => {
    const page = offsetParams(req.query as Record<string, unknown>);
    const { rows, total } = await segments.contactsPage(req.project!.id, segmentId(req.params.id), page);
    res.json(offsetPage(rows.map(contactView), total, page));
  });

  router.post('/segments/:id/members', async (req, res) => {
    const id = segmentId(req.params.id);
    res.json(await segments.addMembers(req.project!.id, id, parseBody(MembersBody, req.body)));
  });

  router.delete('/segments/:id/members', async (req, res) => {
    const id = segmentId(req.params.id);
    res.json(await segments.removeMembers(req.project!.id, id, parseBody(RemoveMembersBody, req.body).emails));
  });

  router.post('/segments/:id/compute', async (req, res) => {
    res.json(await segments.compute(req.project!.id, segmentId(req.params.id)));
  });

  router.post('/segments/:id/refresh', async (req, res) => {
    res.json(await segments.refresh(req.project!.id, segmentId(req.params.id)));
  });

  return router;
}
