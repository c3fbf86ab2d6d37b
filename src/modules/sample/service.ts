/**
 * Every account's sample farm: a test-mode farm with `sample: true` that a test key finds at once,
 * full of believable records, devices with a day of readings, the alerts those readings open, tasks
 * and recent farm events. It is built through the same service functions the API uses, so it is
 * always valid; `resetSampleFarm` puts it back as new.
 */

import { forgetFarmDevices } from '../../calls/key-cache.ts';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../domain/errors.ts';
import { DAY_MS } from '../../lib/time.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { toFarm, updateFarmRow } from '../farms/repository.ts';
import type { Farm } from '../farms/schemas.ts';
import { createFarm } from '../farms/service.ts';
import { SAMPLE_FARM, SAMPLE_FARM_AGE_DAYS } from './data.ts';
import { clearFarmContents } from './repository.ts';
import { seedSampleFarm } from './seed.ts';

/** Creates the account's sample farm and fills it, in the caller's transaction (or its own). */
export async function createSampleFarm(db: Db, scope: Scope, now: number = Date.now()): Promise<Farm> {
  const run = async (trx: Db): Promise<Farm> => {
    const farm = await createFarm(
      trx,
      { accountId: scope.accountId, mode: 'test' },
      { ...SAMPLE_FARM },
      { sample: true, now: now - SAMPLE_FARM_AGE_DAYS * DAY_MS },
    );
    await seedSampleFarm(trx, { accountId: scope.accountId, mode: 'test' }, farm.id, now);
    return farm;
  };
  return inTransaction(db, run);
}

/**
 * Puts the sample farm back as new, in one transaction: its name, place and settings (alert rules
 * back to the defaults), and every record, device, reading, alert, task and event, re-seeded around
 * now. The farm keeps its id; webhooks (and their deliveries) are kept. Any other farm is 404.
 */
export async function resetSampleFarm(
  db: Db,
  scope: Scope,
  farmId: string,
  now: number = Date.now(),
): Promise<Farm> {
  const run = async (trx: Db): Promise<Farm> => {
    const farm = await requireFarm(trx, scope, farmId);
    if (farm.sample !== 1) throw new AppError('not_found', `No sample farm with id "${farmId}".`);
    // Updating the farm row first also serialises concurrent resets of the same farm.
    const restored = { ...SAMPLE_FARM, settings: '{}' };
    await updateFarmRow(trx, farm.id, restored);
    await clearFarmContents(trx, farm.id);
    // The old devices' keys stop working at once in every process (src/calls/key-cache.ts).
    await notify(trx, BUS_CHANNELS.farmDevices, farm.id);
    await seedSampleFarm(trx, scope, farm.id, now);
    return toFarm({ ...farm, ...restored });
  };
  const reset = await inTransaction(db, run);
  forgetFarmDevices(farmId);
  return reset;
}
