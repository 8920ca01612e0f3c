import { hash, verify } from '@node-rs/argon2';

const ALGORITHM_ARGON2ID = 2;
const options = { algorithm: ALGORITHM_ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** Hashes a password with argon2id. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, options);
}

const dummyHash = hash('herald-timing-equaliser', options);

/** Checks a password against a stored hash; with no hash it still spends the same time and fails. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
