import type { EntityManager } from 'typeorm';
import { Email } from '../entities/email';

/** An email of the project by id; null when there is none (or it is another project's). */
export function findProjectEmail(manager: EntityManager, projectId: string, id: string): Promise<Email | null> {
  return manager.getRepository(Email).findOneBy({ projectId, id });
}
