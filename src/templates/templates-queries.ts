import type { EntityManager } from 'typeorm';
import { containsPattern } from '../db/like';
import { Template, type EmailType } from '../entities/template';
import type { OffsetParams } from '../http/pagination';

export const TEMPLATE_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type TemplateSort = (typeof TEMPLATE_SORTS)[number];

/** Filters and order of `GET /templates`. */
export interface TemplateFilter {
  type?: EmailType;
  search?: string;
  sort: TemplateSort;
  dir: 'asc' | 'desc';
}

const ORDER_BY: Record<TemplateSort, string> = {
  name: 'LOWER(t.name)',
  createdAt: 't.createdAt',
  updatedAt: 't.updatedAt',
};

/** A page of a project's templates, filtered and sorted, with the total that match. */
export async function templatePage(
  manager: EntityManager,
  projectId: string,
  filter: TemplateFilter,
  page: OffsetParams,
): Promise<{ rows: Template[]; total: number }> {
  const builder = manager.createQueryBuilder(Template, 't').where('t.projectId = :projectId', { projectId });
  if (filter.type) builder.andWhere('t.type = :type', { type: filter.type });
  if (filter.search) {
    const pattern = containsPattern(filter.search);
    builder.andWhere('(t.name ILIKE :pattern OR t.description ILIKE :pattern OR t.subject ILIKE :pattern)', { pattern });
  }
  const dir = filter.dir === 'asc' ? 'ASC' : 'DESC';
  const [rows, total] = await builder.orderBy(ORDER_BY[filter.sort], dir).addOrderBy('t.id', dir).offset(page.offset).limit(page.pageSize).getManyAndCount();
  return { rows, total };
}

/** One template of a project, locked for update when asked. */
export function findTemplate(manager: EntityManager, projectId: string, id: string, lock = false): Promise<Template | null> {
  return manager.findOne(Template, { where: { projectId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
}

/** Stores a new template or the changes to a loaded one. */
export function saveTemplate(manager: EntityManager, template: Template | Omit<Template, 'id' | 'createdAt' | 'updatedAt'>): Promise<Template> {
  return manager.save(manager.create(Template, template));
}

/** Deletes a template of a project; whether there was one. */
export async function deleteTemplate(manager: EntityManager, projectId: string, id: string): Promise<boolean> {
  return Boolean((await manager.delete(Template, { projectId, id })).affected);
}
