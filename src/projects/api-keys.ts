import type { EntityManager } from 'typeorm';
import type { ApiKeyKind } from '../entities/api-key';
import { digestsEqual, randomBase62, sha256 } from '../accounts/tokens';
import { findKeyByHash, replaceKeys } from './api-keys-queries';

const PREFIX: Record<ApiKeyKind, string> = { public: 'pk_', secret: 'sk_' };

/** A freshly generated key pair; the plain keys exist only in this value. */
export interface IssuedKeys {
  publicKey: string;
  secretKey: string;
}

/** The project a presented key belongs to, if any. */
export interface KeyMatch {
  projectId: string;
  projectName: string;
  disabled: boolean;
  kind: ApiKeyKind;
}

/** The kind a key claims by its prefix, or undefined when it has neither prefix. */
export function kindOfKey(key: string): ApiKeyKind | undefined {
  if (key.startsWith(PREFIX.public)) return 'public';
  if (key.startsWith(PREFIX.secret)) return 'secret';
  return undefined;
}

/** Replaces a project's two keys with new ones in the given transaction; old keys stop working at once. */
export async function issueKeys(manager: EntityManager, projectId: string): Promise<IssuedKeys> {
  const issued: IssuedKeys = {
    publicKey: PREFIX.public + randomBase62(40),
    secretKey: PREFIX.secret + randomBase62(40),
  };
  await replaceKeys(manager, projectId, [
    { kind: 'public', keyHash: sha256(issued.publicKey), prefix: issued.publicKey.slice(0, 10) },
    { kind: 'secret', keyHash: sha256(issued.secretKey), prefix: issued.secretKey.slice(0, 10) },
  ]);
  return issued;
}

/** Finds the project of a presented key by its hash, comparing digests in constant time. */
export async function findKey(manager: EntityManager, key: string): Promise<KeyMatch | undefined> {
  const digest = sha256(key);
  const row = await findKeyByHash(manager, digest);
  if (!row || !digestsEqual(row.key_hash, digest)) return undefined;
  return { projectId: row.project_id, projectName: row.name, disabled: row.disabled, kind: row.kind };
}
