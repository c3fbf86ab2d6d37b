/**
 * The LoRaWAN uplink burst for `npm run bench` (BENCH_PHASES=lorawan, or all): 200 devices carried by a
 * ChirpStack integration, 1,000 `up` events (5 per device) posted to the uplink URL by 50 connections at once,
 * and every tenth sent a second time as a network server's retry would be. Measured beside the HTTP ingest
 * figure (1-reading reports): an uplink is one report through the same ingest service, plus its key claim,
 * DevEUI lookup and mapping. It checks that each uplink was stored exactly once.
 */
import { openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createDevice } from '../src/modules/devices/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { createIntegration } from '../src/modules/integrations/service.ts';
import type { BenchDatabase } from './lib/db.ts';
import { type LoadResult, runLoad } from './lib/load.ts';

export const LORAWAN_DEVICES = 200;
export const LORAWAN_UPLINKS = 1_000;
const CONNECTIONS = 50;

const euiOf = (i: number) => (0xa8404100_0000 + i).toString(16).padStart(16, '0');

export interface LorawanSetup {
  farmId: string;
  integrationId: string;
  secret: string;
}

/** The farm, its 200 devices (serial eui:…) and the integration, written through the services. */
export async function setUpLorawan(database: BenchDatabase): Promise<LorawanSetup> {
  const opened = await openDatabase(database.config);
  try {
    const db = opened.db;
    const account = await createAccount(db, { name: 'LoRaWAN bench account' });
    const scope = { accountId: account.account_id, mode: 'live' as const };
    const farm = await createFarm(db, scope, { name: 'LoRaWAN farm' });
    for (let i = 0; i < LORAWAN_DEVICES; i++) {
      await createDevice(db, scope, farm.id, {
        type: 'water',
        name: `Trough ${i + 1}`,
        serial: `eui:${euiOf(i)}`,
      });
    }
    const integration = await createIntegration(
      db,
      scope,
      farm.id,
      { type: 'chirpstack', name: 'Bench gateway' },
      { publicUrl: 'http://127.0.0.1', allowPrivate: true },
    );
    return { farmId: farm.id, integrationId: integration.id, secret: integration.secret };
  } finally {
    await opened.close();
  }
}

function upEvent(n: number, origin: number): string {
  const device = n % LORAWAN_DEVICES;
  return JSON.stringify({
    deduplicationId: `bench-${origin}-${n}`,
    time: new Date(origin + Math.floor(n / LORAWAN_DEVICES) * 60_000).toISOString(),
    deviceInfo: { devEui: euiOf(device).toUpperCase(), deviceName: `trough-${device + 1}` },
    fPort: 2,
    fCnt: n,
    data: 'DhwLBQ==',
    object: { distance: 400 + (n % 50), level: n },
    rxInfo: [
      { gatewayId: '0016c001f153a14c', rssi: -80 - (n % 30), snr: 7.5 },
      { gatewayId: '0016c001f153a14d', rssi: -110, snr: -4 },
    ],
  });
}

/** Posts the burst (1,000 uplinks and 100 repeats) and returns the load figures. */
export async function lorawanBurst(port: number, setup: LorawanSetup, origin: number): Promise<LoadResult> {
  const repeats = LORAWAN_UPLINKS / 10;
  let next = 0;
  return runLoad({
    port,
    connections: CONNECTIONS,
    totalRequests: LORAWAN_UPLINKS + repeats,
    next: () => {
      const k = next++;
      // After the 1,000, every tenth again.
      const n = k < LORAWAN_UPLINKS ? k : (k - LORAWAN_UPLINKS) * 10;
      return {
        method: 'POST',
        path: `/v1/integrations/${setup.integrationId}/uplink?event=up`,
        headers: { authorization: `Bearer ${setup.secret}`, 'content-type': 'application/json' },
        body: upEvent(n, origin),
      };
    },
  });
}

/** How many `lorawan.level` readings the burst stored (1,000 when each uplink is stored once). */
export async function storedUplinks(database: BenchDatabase, farmId: string): Promise<number> {
  const opened = await openDatabase(database.config, { migrate: false });
  try {
    const row = await opened.db
      .selectFrom('readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', '=', farmId)
      .where('metric', '=', 'lorawan.level')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await opened.close();
  }
}
