import type { EntityManager } from 'typeorm';
import { ApiKey, type ApiKeyKind } from '../entities/api-key';

/** A stored key as its project is found by it. */
export interface KeyRow {
  key_hash: string;
  kind: ApiKeyKind;
  project_id: string;
  name: string;
  disabled: boolean;
}

/** Deletes the project's keys and stores these in their place. */
export async function replaceKeys(
  manager: EntityManager,
  projectId: string,
  keys: { kind: ApiKeyKind; keyHash: string; prefix: string }[],
): Promise<void> {
  await manager.delete(ApiKey, { projectId });
  await manager.insert(ApiKey, keys.map((key) => ({ projectId, ...key })));
}

/** The stored keys among these hashes, each with its project's name and state. */
export function findKeysByHashes(manager: EntityManager, keyHashes: string[]): Promise<KeyRow[]> {
  return manager.query(
    `SELECT k.key_hash, k.kind, p.id AS project_id, p.name, p.disabled
       FROM api_keys k JOIN projects p ON p.id = k.project_id
      WHERE k.key_hash = ANY($1::text[])`,
    [keyHashes],
  );
}
