import type { EntityManager } from 'typeorm';
import type { ApiKeyKind } from '../entities/api-key';
import { digestsEqual, randomBase62, sha256 } from '../accounts/tokens';
import { findKeysByHashes, replaceKeys, type KeyRow } from './api-keys-queries';

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

/** The match of a stored key row to a presented key's digest, compared in constant time. */
function matchOf(row: KeyRow | undefined, digest: string): KeyMatch | undefined {
  if (!row || !digestsEqual(row.key_hash, digest)) return undefined;
  return { projectId: row.project_id, projectName: row.name, disabled: row.disabled, kind: row.kind };
}

/** Finds the projects of presented keys by their hashes in one statement, comparing digests in constant time; one match (or undefined) per key, in order. */
export async function findKeys(manager: EntityManager, keys: string[]): Promise<(KeyMatch | undefined)[]> {
  const digests = keys.map(sha256);
  const rows = new Map((await findKeysByHashes(manager, [...new Set(digests)])).map((row) => [row.key_hash, row]));
  return digests.map((digest) => matchOf(rows.get(digest), digest));
}
