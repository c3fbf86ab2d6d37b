/**
 * The benchmark's database contents and device loads, shared by `npm run bench` (run.ts) and the tools
 * beside it (server-cpu.ts): one account with an ingest farm of INGEST_DEVICES houses and a typical farm
 * (300 animals, 30 devices, 60,000 readings), and the ingest requests those houses send.
 */
import { openDatabase } from '../../src/db/database.ts';
import { createAccount } from '../../src/modules/accounts/service.ts';
import { createDevice } from '../../src/modules/devices/service.ts';
import { createFarm } from '../../src/modules/farms/service.ts';
import type { BenchDatabase } from './db.ts';
import { buildFarm } from './farm.ts';
import type { RequestSpec } from './load.ts';
import { reportBody } from './reports.ts';

/** Houses reporting at once in the ingest loads (one connection each). */
export const INGEST_DEVICES = 50;

export interface Setup {
  liveKey: string;
  ingestDevices: { id: string; farm_id: string; key: string }[];
  typical: { farmId: string; animalIds: string[]; houseIds: string[] };
  accountId: string;
}

export async function setUp(database: BenchDatabase): Promise<Setup> {
  const opened = await openDatabase(database.config);
  try {
    const db = opened.db;
    const account = await createAccount(db, { name: 'Bench account' });
    const scope = { accountId: account.account_id, mode: 'live' as const };
    const ingestFarm = await createFarm(db, scope, { name: 'Ingest farm' });
    const ingestDevices = [];
    for (let i = 0; i < INGEST_DEVICES; i++) {
      const device = await createDevice(db, scope, ingestFarm.id, { type: 'house', name: `House ${i + 1}` });
      ingestDevices.push({ id: device.id, farm_id: ingestFarm.id, key: device.device_key });
    }
    const typicalFarm = await createFarm(db, scope, { name: 'Typical farm' });
    const typical = await buildFarm(
      db,
      { id: typicalFarm.id, accountId: account.account_id, mode: 'live' },
      { animals: 300, devices: 30, readingsPerDevice: 2_000 },
    );
    return {
      liveKey: account.live_key,
      accountId: account.account_id,
      ingestDevices,
      typical: { farmId: typicalFarm.id, animalIds: typical.animalIds, houseIds: typical.houseIds },
    };
  } finally {
    await opened.close();
  }
}

/** Each connection (worker) reports as one house, its reports of `size` readings continuing from `origin`. */
export function ingestLoad(setup: Setup, origin: number, size: number) {
  const seqs = new Array<number>(INGEST_DEVICES).fill(0);
  return (worker: number): RequestSpec => {
    const device = setup.ingestDevices[worker % INGEST_DEVICES];
    if (!device) throw new Error('no device');
    const seq = seqs[worker] ?? 0;
    seqs[worker] = seq + 1;
    return {
      method: 'POST',
      path: '/v1/ingest',
      headers: { authorization: `Bearer ${device.key}`, 'content-type': 'application/json' },
      body: reportBody(origin, seq, size),
    };
  };
}
