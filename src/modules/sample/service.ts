/**
 * Every account's sample farm: a test-mode farm with `sample: true` that a test key finds at once.
 */
import type { Db } from '../../db/schema.ts';
import type { Scope } from '../farms/access.ts';
import type { Farm } from '../farms/schemas.ts';
import { createFarm } from '../farms/service.ts';

export const SAMPLE_FARM = {
  name: 'Willow Creek Farm (sample)',
  timezone: 'America/Chicago',
  lat: 38.9517,
  lon: -92.3341,
  acres: 160,
} as const;

export async function createSampleFarm(db: Db, scope: Scope): Promise<Farm> {
  return createFarm(db, { accountId: scope.accountId, mode: 'test' }, { ...SAMPLE_FARM }, { sample: true });
}
