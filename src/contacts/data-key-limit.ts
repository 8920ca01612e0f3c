import type { EntityManager } from 'typeorm';
import { ApiError } from '../http/errors';
import { countFieldsLocked } from './contacts-queries';

/** The most distinct custom `data` keys a project may have. */
export const MAX_DATA_KEYS = 1000;

/** A write that would take the project past MAX_DATA_KEYS distinct `data` keys: 422, nothing written. */
export class DataKeyLimitError extends ApiError {
  constructor(existing: number, added: string[]) {
    const sample = added.slice(0, 5).map((key) => JSON.stringify(key)).join(', ') + (added.length > 5 ? ', ...' : '');
    const message =
      `A project may have at most ${MAX_DATA_KEYS.toLocaleString('en-US')} distinct data keys; it has ${existing.toLocaleString('en-US')} ` +
      `and this would add ${added.length} more (${sample})`;
    super(422, 'VALIDATION_ERROR', message, {
      errors: [{ field: 'data', code: 'too_many_keys', message }],
      details: { limit: MAX_DATA_KEYS, existing, adding: added.length },
      suggestion: 'Reuse existing keys, keep related values under one object key, or delete unused keys with DELETE /contacts/fields/{field}.',
    });
  }
}

/** After recording `added` new keys in the transaction: throws DataKeyLimitError when they take the project past MAX_DATA_KEYS. */
export async function assertWithinDataKeyLimit(manager: EntityManager, projectId: string, added: string[]): Promise<void> {
  if (added.length === 0) return;
  const count = await countFieldsLocked(manager, projectId);
  if (count > MAX_DATA_KEYS) throw new DataKeyLimitError(count - added.length, added);
}
