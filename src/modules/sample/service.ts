/**
 * Every account's sample farm: a test-mode farm with `sample: true` that a test key finds at once,
 * full of believable records, devices with a day of readings, the alerts those readings open, tasks
 * and recent farm events. It is built through the same service functions the API uses, so it is
 * always valid; `resetSampleFarm` puts it back as new.
 */

import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { notFound } from '../../http/errors.ts';
import { localParts, zonedTimeToUtc } from '../../lib/local-time.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS, toIso } from '../../lib/time.ts';
import { createAnimal } from '../animals/service.ts';
import { queueCommand } from '../commands/service.ts';
import { createDevice } from '../devices/service.ts';
import { createEvent } from '../events/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { toFarm } from '../farms/repository.ts';
import type { Farm } from '../farms/schemas.ts';
import { createFarm } from '../farms/service.ts';
import { createGroup, updateGroup } from '../groups/service.ts';
import { ingestReport } from '../ingest/service.ts';
import { createPaddock } from '../paddocks/service.ts';
import { createTask } from '../tasks/service.ts';
import {
  ANIMALS,
  DEVICES,
  type DeviceKey,
  GROUPS,
  type GroupKey,
  type LocalDue,
  PADDOCKS,
  type PaddockKey,
  SAMPLE_FARM,
  SAMPLE_FARM_AGE_DAYS,
  TASKS,
} from './data.ts';
import { planReports } from './reports.ts';
import {
  clearFarmContents,
  findActiveAlertId,
  markSeedEventsDispatched,
  pendingOutboxIds,
  takenEids,
} from './repository.ts';
import {
  bolusSeries,
  broilerHouseSeries,
  type DeviceSeries,
  guardianSeries,
  layerHouseSeries,
  readerSeries,
  SampleClock,
  soilProbeSeries,
  trackerSeries,
  troughSeries,
  weatherSeries,
  weighingAt,
} from './series.ts';

/** A deterministic 15-digit EID (US country code 840) per sample animal. */
function sampleEid(index: number): string {
  return `840003${String(100_200_300 + index * 7_919).padStart(9, '0')}`;
}

interface Seeded {
  paddocks: Map<PaddockKey, string>;
  groups: Map<GroupKey, string>;
  animals: Map<string, string>;
  devices: Map<DeviceKey, string>;
}

function dueAt(due: LocalDue, now: number, timezone: string): number {
  const today = localParts(now, timezone);
  const day = new Date(Date.UTC(today.year, today.month - 1, today.day) + due.daysFromToday * DAY_MS);
  return zonedTimeToUtc(
    {
      year: day.getUTCFullYear(),
      month: day.getUTCMonth() + 1,
      day: day.getUTCDate(),
      hour: due.hh,
      minute: due.mm,
    },
    timezone,
  );
}

function seriesFor(key: DeviceKey, clock: SampleClock): DeviceSeries {
  const creek = { lat: 38.9562, lon: -92.3398 };
  switch (key) {
    case 'house1':
      return layerHouseSeries(clock);
    case 'house2':
      return broilerHouseSeries(clock);
    case 'bolus1':
      return bolusSeries(clock, key, { battery: 81, fever: false });
    case 'bolus2':
      return bolusSeries(clock, key, { battery: 76, fever: true });
    case 'bolus3':
      return bolusSeries(clock, key, { battery: 69, fever: false });
    case 'tag1':
      return trackerSeries(clock, key, { batteryFrom: 58.4, batteryTo: 57.9, at: creek });
    case 'tag2':
      return trackerSeries(clock, key, { batteryFrom: 44.2, batteryTo: 43.8, at: creek });
    case 'tag3':
      // Crosses the 15% watch line about 15 hours ago.
      return trackerSeries(clock, key, { batteryFrom: 16.4, batteryTo: 12.9, at: creek });
    case 'band1':
      return trackerSeries(clock, key, {
        batteryFrom: 63.1,
        batteryTo: 61.2,
        nightActive: true,
        at: { lat: 38.9469, lon: -92.3358 },
      });
    case 'guardian':
      return guardianSeries(clock);
    case 'trough':
      return troughSeries(clock);
    case 'weather':
      return weatherSeries(clock);
    case 'reader':
      return readerSeries(
        clock,
        ANIMALS.filter((a) => a.weighedKg !== undefined).map((a) => ({ kg: a.weighedKg ?? 0 })),
      );
    case 'soil':
      return soilProbeSeries(clock);
  }
}

/**
 * Fills an empty sample farm. Runs inside the caller's transaction; `now` is the moment everything
 * is relative to. The seed's webhook events are marked dispatched: they describe the farm as it is,
 * not things that happened, so a webhook on the sample farm is not flooded by a reset.
 */
export async function seedSampleFarm(trx: Db, scope: Scope, farmId: string, now: number): Promise<void> {
  const pendingBefore = await pendingOutboxIds(trx, farmId);
  const clock = new SampleClock({
    now,
    timezone: SAMPLE_FARM.timezone,
    lat: SAMPLE_FARM.lat,
    lon: SAMPLE_FARM.lon,
  });
  const setUp = now - SAMPLE_FARM_AGE_DAYS * DAY_MS;
  const seeded: Seeded = { paddocks: new Map(), groups: new Map(), animals: new Map(), devices: new Map() };
  const id = <K>(map: Map<K, string>, key: K): string => {
    const value = map.get(key);
    if (!value) throw new Error(`sample farm: nothing seeded for ${String(key)}`);
    return value;
  };
  // Records created one millisecond apart keep a stable order in newest-first lists.
  let tick = setUp;
  const next = () => ++tick;

  for (const p of PADDOCKS) {
    const paddock = await createPaddock(
      trx,
      scope,
      farmId,
      {
        name: p.name,
        acres: p.acres,
        geometry: p.geometry,
        rest_days_target: p.rest_days_target,
        last_grazed_at: toIso(now - p.grazedDaysAgo * DAY_MS),
      },
      next(),
    );
    seeded.paddocks.set(p.key, paddock.id);
  }

  for (const g of GROUPS) {
    const group = await createGroup(
      trx,
      scope,
      farmId,
      {
        name: g.name,
        species: g.species,
        kind: g.kind,
        head_count: g.head_count,
        ...(g.hatchDaysAgo !== null ? { hatch_date: toIso(now - g.hatchDaysAgo * DAY_MS) } : {}),
        paddock_id: id(seeded.paddocks, g.paddock),
      },
      // A flock hatched after the farm was set up was added when it arrived.
      g.hatchDaysAgo !== null && g.hatchDaysAgo < SAMPLE_FARM_AGE_DAYS
        ? now - g.hatchDaysAgo * DAY_MS
        : next(),
    );
    seeded.groups.set(g.key, group.id);
  }
  // The herd moved from Hilltop to Creek Bottom two days ago: a logged move.
  await updateGroup(
    trx,
    scope,
    id(seeded.groups, 'herd'),
    { paddock_id: id(seeded.paddocks, 'creek') },
    now - 2 * DAY_MS,
  );

  // An EID the account already uses on another test farm stays with that animal.
  const eids = ANIMALS.map((a, i) => (a.eid ? sampleEid(i) : null));
  const taken = await takenEids(
    trx,
    scope,
    eids.filter((e): e is string => e !== null),
  );
  for (const [i, a] of ANIMALS.entries()) {
    const eid = eids[i];
    const animal = await createAnimal(
      trx,
      scope,
      farmId,
      {
        species: a.species,
        name: a.name,
        tag: a.tag,
        ...(eid && !taken.has(eid) ? { eid } : {}),
        sex: a.sex,
        breed: a.breed,
        birth_date: toIso(Math.floor((now - a.bornDaysAgo * DAY_MS) / DAY_MS) * DAY_MS),
        ...(a.group ? { group_id: id(seeded.groups, a.group) } : {}),
        paddock_id: id(seeded.paddocks, a.paddock),
        ...(a.notes ? { notes: a.notes } : {}),
        ...(a.fields ? { fields: a.fields } : {}),
      },
      next(),
    );
    seeded.animals.set(a.key, animal.id);
  }

  const deviceSetUp = now - 60 * DAY_MS;
  let deviceTick = deviceSetUp;
  for (const d of DEVICES) {
    const device = await createDevice(
      trx,
      scope,
      farmId,
      {
        type: d.type,
        name: d.name,
        serial: d.serial,
        firmware: d.firmware,
        ...(d.animal ? { animal_id: id(seeded.animals, d.animal) } : {}),
        ...(d.group ? { group_id: id(seeded.groups, d.group) } : {}),
        ...(d.lat !== undefined && d.lon !== undefined ? { lat: d.lat, lon: d.lon } : {}),
      },
      { now: ++deviceTick },
    );
    seeded.devices.set(d.key, device.id);
  }

  // House settings made with (simulated) commands, so each house shows recent commands.
  const commands: Array<{
    device: DeviceKey;
    command: string;
    params: Record<string, unknown>;
    hoursAgo: number;
  }> = [
    { device: 'house1', command: 'feed.schedule', params: { times: ['06:30', '16:30'] }, hoursAgo: 70 },
    {
      device: 'house1',
      command: 'move.start',
      params: { meters_per_day: 18, heading_deg: 95 },
      hoursAgo: 50,
    },
    { device: 'house2', command: 'climate.set_target', params: { temp_c: 24 }, hoursAgo: 52 },
    { device: 'house2', command: 'feed.dispense', params: { kg: 12 }, hoursAgo: 13 },
    { device: 'house2', command: 'move.stop', params: {}, hoursAgo: 30 },
  ];
  commands.sort((a, b) => b.hoursAgo - a.hoursAgo);
  for (const c of commands) {
    await queueCommand(
      trx,
      scope,
      id(seeded.devices, c.device),
      { command: c.command, params: c.params },
      { now: now - c.hoursAgo * HOUR_MS },
    );
  }

  // A day of readings, sent the way devices send them; the alert engine opens what follows.
  for (const d of DEVICES) {
    const deviceId = id(seeded.devices, d.key);
    for (const report of planReports(seriesFor(d.key, clock))) {
      await ingestReport(trx, { deviceId, transport: 'sample' }, report.body, report.at);
    }
  }

  // Recent farm events.
  const events: Array<{
    type: string;
    subject_type: string;
    subject_id: string;
    data: Record<string, unknown>;
    at: number;
  }> = [
    {
      type: 'feed.delivery',
      subject_type: 'device',
      subject_id: id(seeded.devices, 'house2'),
      data: { kg: 340, supplier: 'Hillside Mill', ration: 'broiler grower' },
      at: now - 12.5 * HOUR_MS,
    },
    {
      type: 'egg.collection',
      subject_type: 'group',
      subject_id: id(seeded.groups, 'layers'),
      data: { eggs: 236, cracked: 4 },
      at: clock.lastLocal(10, 30) - (clock.lastLocal(10, 30) > now - 2 * HOUR_MS ? DAY_MS : 0),
    },
    {
      type: 'treatment',
      subject_type: 'group',
      subject_id: id(seeded.groups, 'pigs'),
      data: { product: 'Ivermectin 1%', dose_ml_per_head: 2.5, route: 'injection', withdrawal_days: 18 },
      at: dueAt({ daysFromToday: -1, hh: 15, mm: 20 }, now, SAMPLE_FARM.timezone),
    },
    {
      type: 'note',
      subject_type: 'paddock',
      subject_id: id(seeded.paddocks, 'north'),
      data: { text: 'Clover and orchardgrass have recovered well; ready for the herd.' },
      at: now - 3 * DAY_MS,
    },
    {
      type: 'hay.delivery',
      subject_type: 'paddock',
      subject_id: id(seeded.paddocks, 'creek'),
      data: { bales: 40, kind: 'round', supplier: 'Miller Farms' },
      at: now - 4 * DAY_MS,
    },
  ];
  ANIMALS.filter((a) => a.weighedKg !== undefined).forEach((a, i) => {
    events.push({
      type: 'weight',
      subject_type: 'animal',
      subject_id: id(seeded.animals, a.key),
      data: { kg: a.weighedKg, method: 'scale', device_id: id(seeded.devices, 'reader') },
      at: weighingAt(clock, i),
    });
  });
  events.sort((a, b) => a.at - b.at);
  for (const e of events) {
    await createEvent(
      trx,
      scope,
      farmId,
      { type: e.type, subject_type: e.subject_type, subject_id: e.subject_id, data: e.data, at: toIso(e.at) },
      Math.max(e.at, now - DAY_MS * 7),
    );
  }

  for (const t of TASKS) {
    const due = t.due ? dueAt(t.due, now, SAMPLE_FARM.timezone) : null;
    const created =
      t.status === 'done' && due !== null ? due + 2 * HOUR_MS : now - t.createdDaysAgo * DAY_MS - HOUR_MS;
    const subject = t.subject;
    let subjectId: string | null = null;
    if (subject?.paddock) subjectId = id(seeded.paddocks, subject.paddock);
    else if (subject?.group) subjectId = id(seeded.groups, subject.group);
    else if (subject?.animal) subjectId = id(seeded.animals, subject.animal);
    else if (subject?.device) subjectId = id(seeded.devices, subject.device);
    const alertId = t.alertRule ? await findActiveAlertId(trx, farmId, t.alertRule) : null;
    await createTask(
      trx,
      scope,
      farmId,
      {
        title: t.title,
        ...(t.notes ? { notes: t.notes } : {}),
        ...(due !== null ? { due_at: toIso(due) } : {}),
        ...(t.assignee ? { assignee: t.assignee } : {}),
        ...(t.status ? { status: t.status } : {}),
        ...(subjectId ? { subject_id: subjectId } : {}),
        ...(alertId ? { alert_id: alertId } : {}),
      },
      Math.min(created, now - MINUTE_MS),
    );
  }

  await markSeedEventsDispatched(trx, farmId, pendingBefore, now);
}

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
    if (farm.sample !== 1) throw notFound('sample farm', farmId);
    // Updating the farm row first also serialises concurrent resets of the same farm.
    const restored = { ...SAMPLE_FARM, settings: '{}' };
    await trx.updateTable('farms').set(restored).where('id', '=', farm.id).execute();
    await clearFarmContents(trx, farm.id);
    await seedSampleFarm(trx, scope, farm.id, now);
    return toFarm({ ...farm, ...restored });
  };
  return inTransaction(db, run);
}
