import type { EntityManager } from 'typeorm';
import { Email } from '../entities/email';
import { Template } from '../entities/template';

/** A template of the project by id; null when there is none. */
export function findProjectTemplate(manager: EntityManager, projectId: string, id: string): Promise<Template | null> {
  return manager.getRepository(Template).findOneBy({ projectId, id });
}

/** Stores one email record in the caller's transaction; answers it with its id. */
export function insertEmail(manager: EntityManager, values: Partial<Email>): Promise<Email> {
  return manager.save(manager.create(Email, values));
}
