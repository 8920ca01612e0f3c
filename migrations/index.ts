import { Foundation1763700000000 } from './1763700000000-foundation';

/** Every migration, oldest first. */
export const migrations = [Foundation1763700000000];
