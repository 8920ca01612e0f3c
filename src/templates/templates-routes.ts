import { EMAIL_TYPES, type EmailType } from '../entities/template';
import { endpoint, type RouteTable } from '../http/endpoint';
import { offsetPage, offsetParams } from '../http/pagination';
import { textParam } from '../http/query';
import { requireText, uuidPathId } from '../http/validate';
import { CreateTemplateBody, Template, TemplateListQuery, TemplateUsage, UpdateTemplateBody } from './templates-dtos';
import * as docs from './templates-docs';
import { TEMPLATE_SORTS, templateView, type TemplateInput } from './templates-service';

/** A missing or blank `name` or `from` answers the bare `{ error }` (SPEC "Errors"); on PATCH they may be left out. */
const requireNameAndFrom = (partial: boolean) => requireText(['name', 'from'], partial);

const TEMPLATE_FIELDS = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type'] as const;

/** The template fields sent (never any other key of the body), with `name` and `from` trimmed. */
function templateInput(body: CreateTemplateBody | UpdateTemplateBody): Partial<TemplateInput> {
  const input: Record<string, unknown> = {};
  for (const field of TEMPLATE_FIELDS) if (body[field] !== undefined) input[field] = body[field];
  if (typeof input.name === 'string') input.name = input.name.trim();
  if (typeof input.from === 'string') input.from = input.from.trim();
  return input as Partial<TemplateInput>;
}

const templateId = (id: string) => uuidPathId(id, 'Template');

/** Templates (`/templates`): reusable subject, body and sender of an email. */
export const templatesRoutes: RouteTable = {
  tag: docs.tag,
  shapes: [Template, TemplateUsage],
  endpoints: [
    endpoint<undefined, TemplateListQuery>({
      method: 'get',
      path: '/templates',
      credential: 'secret',
      query: TemplateListQuery,
      doc: docs.listTemplates,
      handle: async ({ services, project, query }) => {
        const page = offsetParams(query);
        const { rows, total } = await services.templates.list(
          project.id,
          {
            type: EMAIL_TYPES.find((type): type is EmailType => type === textParam(query, 'type').toUpperCase()),
            search: textParam(query, 'search') || undefined,
            sort: TEMPLATE_SORTS.find((sort) => sort === textParam(query, 'sort')) ?? 'createdAt',
            dir: textParam(query, 'dir') === 'asc' ? 'asc' : 'desc',
          },
          page,
        );
        return offsetPage(rows.map(templateView), total, page);
      },
    }),
    endpoint<CreateTemplateBody>({
      method: 'post',
      path: '/templates',
      credential: 'secret',
      body: CreateTemplateBody,
      precheck: requireNameAndFrom(false),
      doc: docs.createTemplate,
      handle: async ({ services, project, body }) =>
        templateView(await services.templates.create(project.id, templateInput(body) as TemplateInput)),
    }),
    endpoint({
      method: 'get',
      path: '/templates/{id}',
      credential: 'secret',
      doc: docs.getTemplate,
      handle: async ({ services, project, params }) => templateView(await services.templates.get(project.id, templateId(params.id))),
    }),
    endpoint<UpdateTemplateBody>({
      method: 'patch',
      path: '/templates/{id}',
      credential: 'secret',
      body: UpdateTemplateBody,
      precheck: requireNameAndFrom(true),
      doc: docs.updateTemplate,
      handle: async ({ services, project, params, body }) =>
        templateView(await services.templates.update(project.id, templateId(params.id), templateInput(body))),
    }),
    endpoint({
      method: 'delete',
      path: '/templates/{id}',
      credential: 'secret',
      doc: docs.deleteTemplate,
      handle: async ({ services, project, params }) => {
        await services.templates.delete(project.id, templateId(params.id));
        return { success: true };
      },
    }),
    endpoint({
      method: 'post',
      path: '/templates/{id}/duplicate',
      credential: 'secret',
      doc: docs.duplicateTemplate,
      handle: async ({ services, project, params }) => ({ id: (await services.templates.duplicate(project.id, templateId(params.id))).id }),
    }),
    endpoint({
      method: 'get',
      path: '/templates/{id}/usage',
      credential: 'secret',
      doc: docs.getTemplateUsage,
      handle: async ({ services, project, params }) => services.templates.usage(project.id, templateId(params.id)),
    }),
  ],
};
