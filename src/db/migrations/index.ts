import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_foundation.ts';

/** Every migration, in order. Names sort in the order they run; both engines run the same list. */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
};
