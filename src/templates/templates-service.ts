import type { DataSource, EntityManager } from 'typeorm';
import { assertVerifiedSender } from '../domains/sender-check';
import { Template, type EmailType } from '../entities/template';
import { notFound, validationError, type FieldError } from '../http/errors';
import type { OffsetParams } from '../http/pagination';
import { TemplateSyntaxError, validateTemplate } from '../rendering/renderer';
import { workflowsUsingTemplate } from '../automations/workflows-queries';
import { deleteTemplate, findTemplate, saveTemplate, templatePage, type TemplateFilter } from './templates-queries';

/** A template as the API shows it. */
export function templateView(template: Template) {
  return {
    id: template.id,
    name: template.name,
    description: template.description,
    subject: template.subject,
    body: template.body,
    from: template.from,
    fromName: template.fromName,
    replyTo: template.replyTo,
    type: template.type,
    projectId: template.projectId,
    createdAt: template.createdAt,
    updatedAt: template.updatedAt,
  };
}

/** The fields a caller sets on a template, already validated at the edge. */
export interface TemplateInput {
  name: string;
  from: string;
  description?: string | null;
  subject?: string;
  body?: string;
  fromName?: string | null;
  replyTo?: string | null;
  type?: EmailType;
}

export { TEMPLATE_SORTS, type TemplateFilter, type TemplateSort } from './templates-queries';

/** Where a template is used. */
export interface TemplateUsage {
  campaigns: { id: string; name: string }[];
  workflows: { id: string; name: string; stepId: string }[];
}

/** Throws a 422 (field code `invalid_template`) for each of subject and body that is not a valid template. */
export function assertTemplateSyntax(parts: { subject?: string; body?: string }): void {
  const errors: FieldError[] = [];
  for (const field of ['subject', 'body'] as const) {
    try {
      validateTemplate({ [field]: parts[field] });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      errors.push({ field, code: 'invalid_template', message: error.message });
    }
  }
  if (errors.length > 0) throw validationError(errors, 'The template does not parse');
}

/** Templates of a project: the checks on save (Liquid syntax, verified sender) and their storage. */
export class TemplatesService {
  constructor(private readonly dataSource: DataSource) {}

  /** A page of the project's templates, filtered and sorted. */
  list(projectId: string, filter: TemplateFilter, page: OffsetParams): Promise<{ rows: Template[]; total: number }> {
    return templatePage(this.dataSource.manager, projectId, filter, page);
  }

  /** One template of the project; 404 otherwise. */
  async get(projectId: string, id: string): Promise<Template> {
    return this.find(this.dataSource.manager, projectId, id);
  }

  /** Creates a template after checking its syntax and its sender domain. */
  async create(projectId: string, input: TemplateInput): Promise<Template> {
    assertTemplateSyntax(input);
    await assertVerifiedSender(this.dataSource.manager, projectId, input.from);
    return saveTemplate(this.dataSource.manager, {
      projectId,
      name: input.name,
      description: input.description ?? null,
      subject: input.subject ?? '',
      body: input.body ?? '',
      from: input.from,
      fromName: input.fromName ?? null,
      replyTo: input.replyTo ?? null,
      type: input.type ?? 'MARKETING',
    });
  }

  /** Changes the fields given; the sender domain is checked again when `from` changes. */
  async update(projectId: string, id: string, patch: Partial<TemplateInput>): Promise<Template> {
    assertTemplateSyntax(patch);
    return this.dataSource.transaction(async (manager) => {
      const template = await this.find(manager, projectId, id, true);
      if (patch.from !== undefined && patch.from !== template.from) {
        await assertVerifiedSender(manager, projectId, patch.from);
      }
      Object.assign(template, patch);
      return saveTemplate(manager, template);
    });
  }

  /** Deletes a template; emails sent from it keep their copy of subject and body. */
  async delete(projectId: string, id: string): Promise<void> {
    if (!(await deleteTemplate(this.dataSource.manager, projectId, id))) throw notFound('Template');
  }

  /** Copies a template as "<name> (copy)", under the same rules as creating one. */
  async duplicate(projectId: string, id: string): Promise<Template> {
    const { name, description, subject, body, from, fromName, replyTo, type } = await this.get(projectId, id);
    return this.create(projectId, { name: `${name} (copy)`, description, subject, body, from, fromName, replyTo, type });
  }

  /** The campaigns and workflow steps that reference the template (campaigns carry their own content, so none do). */
  async usage(projectId: string, id: string): Promise<TemplateUsage> {
    await this.get(projectId, id);
    return { campaigns: [], workflows: await workflowsUsingTemplate(this.dataSource.manager, projectId, id) };
  }

  private async find(manager: EntityManager, projectId: string, id: string, lock = false): Promise<Template> {
    const template = await findTemplate(manager, projectId, id, lock);
    if (!template) throw notFound('Template');
    return template;
  }
}
