import type { EntityManager } from 'typeorm';
import { Contact } from '../entities/contact';
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

/** An email record by id; null when there is none (yet). */
export function findEmail(manager: EntityManager, id: string): Promise<Email | null> {
  return manager.getRepository(Email).findOneBy({ id });
}

/** A contact by id; null when it was deleted. */
export function findContact(manager: EntityManager, id: string): Promise<Contact | null> {
  return manager.getRepository(Contact).findOneBy({ id });
}

/** Marks an email FAILED with the reason (at most 1,000 characters) if it is still QUEUED; answers whether it was. */
export async function failQueuedEmail(manager: EntityManager, id: string, reason: string): Promise<boolean> {
  const [, updated]: [unknown, number] = await manager.query(
    `UPDATE emails SET status = 'FAILED', error = $2, updated_at = now() WHERE id = $1 AND status = 'QUEUED'`,
    [id, reason.slice(0, 1000)],
  );
  return updated === 1;
}

/**
 * Counts an attempt of each email still QUEUED among `ids`; answers the ids that were. Rows are
 * locked in id order, as every statement that writes many emails does, so that two of them never deadlock.
 */
export async function claimQueuedEmails(manager: EntityManager, ids: string[]): Promise<Set<string>> {
  const [rows]: [{ id: string }[], number] = await manager.query(
    `UPDATE emails SET attempts = attempts + 1
      WHERE id IN (SELECT id FROM emails WHERE id = ANY($1::uuid[]) AND status = 'QUEUED' ORDER BY id FOR UPDATE)
      RETURNING id`,
    [ids],
  );
  return new Set(rows.map((row) => row.id));
}

/** Marks an email SUPPRESSED if it is still QUEUED. */
export async function suppressQueuedEmail(manager: EntityManager, id: string): Promise<void> {
  await manager.getRepository(Email).update({ id, status: 'QUEUED' }, { status: 'SUPPRESSED' });
}
