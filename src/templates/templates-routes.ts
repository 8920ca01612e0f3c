import { IsEmail, IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { Router } from 'express';
import { isPlainObject } from '../contacts/data-rules';
import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { BareError, notFound } from '../http/errors';
import { offsetPage, offsetParams } from '../http/pagination';
import { textParam } from '../http/query';
import { isUuid, Optional, parseBody } from '../http/validate';
import {
  TEMPLATE_SORTS,
  templateView,
  type TemplateInput,
  type TemplateListQuery,
  type TemplatesService,
} from './templates-service';


/** The template fields beyond the presence of `name` and `from` (checked first, with bare errors). */
class TemplateFields {
  @Optional() @IsString() @MaxLength(255) name?: string;
  @IsOptional() @IsString() @MaxLength(2000) description?: string | null;
  @Optional() @IsString() @MaxLength(998) subject?: string;
  @Optional() @IsString() body?: string;
  @Optional() @IsEmail({}, { message: 'from must be a valid email address' }) @MaxLength(320) from?: string;
  @IsOptional() @IsString() @MaxLength(255) @Matches(/^[^\r\n]*$/, { message: 'fromName must not contain line breaks' })
  fromName?: string | null;
  @IsOptional() @IsEmail({}, { message: 'replyTo must be a valid email address' }) @MaxLength(320) replyTo?: string | null;
  @Optional() @IsIn(EMAIL_TYPES, { message: `type must be one of ${EMAIL_TYPES.join(', ')}` }) type?: EmailType;
}

const FIELDS = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type'] as const;

/**
 * Validates a template body: a missing or empty `name` or `from` answers the bare
 * `{ error }` (SPEC "Errors"); on PATCH they may be left out but not emptied.
 */
function templateBody(body: unknown, partial: boolean): Partial<TemplateInput> {
  const input = isPlainObject(body) ? body : {};
  for (const field of ['name', 'from'] as const) {
    if (partial && input[field] === undefined) continue;
    const value = input[field];
    if (typeof value !== 'string' || value.trim() === '') throw new BareError(`${field} is required`);
  }
  const fields = parseBody(TemplateFields, input);
  const result: Record<string, unknown> = {};
  for (const field of FIELDS) if (fields[field] !== undefined) result[field] = fields[field];
  if (typeof result.name === 'string') result.name = result.name.trim();
  if (typeof result.from === 'string') result.from = result.from.trim();
  return result as Partial<TemplateInput>;
}

/** Filters and order of `GET /templates`; unrecognised `type`, `sort` or `dir` values fall back to the defaults. */
function listQuery(query: Record<string, unknown>): TemplateListQuery {
  const type = EMAIL_TYPES.find((candidate) => candidate === textParam(query, 'type').toUpperCase());
  const sort = TEMPLATE_SORTS.find((candidate) => candidate === textParam(query, 'sort')) ?? 'createdAt';
  return { type, search: textParam(query, 'search') || undefined, sort, dir: textParam(query, 'dir') === 'asc' ? 'asc' : 'desc' };
}

const templateId = (id: string) => {
  if (!isUuid(id)) throw notFound('Template');
  return id;
};

/** Templates (`/templates`): reusable subject, body and sender of an email. */
export function templatesRouter(templates: TemplatesService): Router {
  const router = Router();

  router.get('/templates', async (req, res) => {
    const query = req.query as Record<string, unknown>;
    const page = offsetParams(query);
    const { rows, total } = await templates.list(req.project!.id, listQuery(query), page);
    res.json(offsetPage(rows.map(templateView), total, page));
  });

  router.post('/templates', async (req, res) => {
    const input = templateBody(req.body, false) as TemplateInput;
    res.status(201).json(templateView(await templates.create(req.project!.id, input)));
  });

  router.get('/templates/:id', async (req, res) => {
    res.json(templateView(await templates.get(req.project!.id, templateId(req.params.id))));
  });

  router.patch('/templates/:id', async (req, res) => {
    const id = templateId(req.params.id);
    res.json(templateView(await templates.update(req.project!.id, id, templateBody(req.body, true))));
  });

  router.delete('/templates/:id', async (req, res) => {
    await templates.delete(req.project!.id, templateId(req.params.id));
    res.json({ success: true });
  });

  router.post('/templates/:id/duplicate', async (req, res) => {
    const copy = await templates.duplicate(req.project!.id, templateId(req.params.id));
    res.status(201).json({ id: copy.id });
  });

  router.get('/templates/:id/usage', async (req, res) => {
    res.json(await templates.usage(req.project!.id, templateId(req.params.id)));
  });

  return router;
}
