/**
 * Seeding the sample farm: one function per step (paddocks, groups, animals, devices, commands, readings,
 * intake history, events, tasks), run in order by `seedSampleFarm`. The tables they read are in data.ts
 * and activity.ts; creating and resetting the farm is service.ts.
 */

import type { Db } from '../../db/schema.ts';
import { DEFAULT_MOVE_RATE_M_PER_DAY } from '../../domain/house-state.ts';
import { offsetM } from '../../lib/geo.ts';
import { localDayBounds, localParts, zonedTimeToUtc } from '../../lib/local-time.ts';
import { mulberry32 } from '../../lib/random.ts';
import { DAY_MS, HOUR_MS, MINUTE_MS, toIso } from '../../lib/time.ts';
import { checkIntake } from '../alert-passes/intake.ts';
import { checkQuietDevices } from '../alert-passes/quiet.ts';
import { createAnimal } from '../animals/service.ts';
import { queueCommand } from '../commands/service.ts';
import { createDevice } from '../devices/service.ts';
import { createEvent } from '../events/service.ts';
import type { Scope } from '../farms/access.ts';
import { placeFarmDevices } from '../grazing/placement.ts';
import { createGroup, updateGroup } from '../groups/service.ts';
import { ingestReport } from '../ingest/service.ts';
import { createPaddock } from '../paddocks/service.ts';
import { createRule } from '../rules/service.ts';
import { createTask } from '../tasks/service.ts';
import { COMMANDS, EVENTS, type LocalDue, type SampleSubject, TASKS } from './activity.ts';
import { seedBreeding } from './breeding.ts';
import {
  ANIMALS,
  DEVICES,
  type DeviceKey,
  GROUPS,
  type GroupKey,
  PADDOCKS,
  type PaddockKey,
  SAMPLE_FARM,
  SAMPLE_FARM_AGE_DAYS,
  TRACK_DAYS,
  TRACKS,
} from './data.ts';
import { seriesFor } from './device-series.ts';
import { seedHerdBook } from './herd-book.ts';
import { planReports } from './reports.ts';
import {
  findActiveAlertId,
  insertSampleTrack,
  markSeedEventsDispatched,
  pendingOutboxIds,
  takenEids,
} from './repository.ts';
import { SampleClock } from './series.ts';
import { weighingAt } from './series-field.ts';
import { seedWeights } from './weights.ts';

/** A deterministic 15-digit EID (US country code 840) per sample animal. */
function sampleEid(index: number): string {
  return `840003${String(100_200_300 + index * 7_919).padStart(9, '0')}`;
}

/** The ids of what has been seeded so far, by the keys of data.ts. */
interface Seeded {
  paddocks: Map<PaddockKey, string>;
  groups: Map<GroupKey, string>;
  animals: Map<string, string>;
  devices: Map<DeviceKey, string>;
}

/** One seeding run: where it writes, the moment it is relative to, and what it has made. */
interface SeedRun {
  trx: Db;
  scope: Scope;
  farmId: string;
  now: number;
  clock: SampleClock;
  seeded: Seeded;
  /** Records created one millisecond apart keep a stable order in newest-first lists. */
  next(): number;
}

function idOf<K>(map: Map<K, string>, key: K): string {
  const value = map.get(key);
  if (!value) throw new Error(`sample farm: nothing seeded for ${String(key)}`);
  return value;
}

function subjectOf(seeded: Seeded, subject: SampleSubject): { subject_type: string; subject_id: string } {
  if (subject.paddock) return { subject_type: 'paddock', subject_id: idOf(seeded.paddocks, subject.paddock) };
  if (subject.group) return { subject_type: 'group', subject_id: idOf(seeded.groups, subject.group) };
  if (subject.animal) return { subject_type: 'animal', subject_id: idOf(seeded.animals, subject.animal) };
  return { subject_type: 'device', subject_id: idOf(seeded.devices, subject.device) };
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

async function seedPaddocks(run: SeedRun): Promise<void> {
  for (const p of PADDOCKS) {
    const paddock = await createPaddock(
      run.trx,
      run.scope,
      run.farmId,
      {
        name: p.name,
        acres: p.acres,
        geometry: p.geometry,
        rest_days_target: p.rest_days_target,
        last_grazed_at: toIso(run.now - p.grazedDaysAgo * DAY_MS),
      },
      placeFarmDevices,
      run.next(),
    );
    run.seeded.paddocks.set(p.key, paddock.id);
  }
}

async function seedGroups(run: SeedRun): Promise<void> {
  const { now, seeded } = run;
  for (const g of GROUPS) {
    const group = await createGroup(
      run.trx,
      run.scope,
      run.farmId,
      {
        name: g.name,
        species: g.species,
        kind: g.kind,
        head_count: g.head_count,
        ...(g.hatchDaysAgo !== null ? { hatch_date: toIso(now - g.hatchDaysAgo * DAY_MS) } : {}),
        paddock_id: idOf(seeded.paddocks, g.paddock),
      },
      // A flock hatched after the farm was set up was added when it arrived.
      g.hatchDaysAgo !== null && g.hatchDaysAgo < SAMPLE_FARM_AGE_DAYS
        ? now - g.hatchDaysAgo * DAY_MS
        : run.next(),
    );
    seeded.groups.set(g.key, group.id);
  }
  // The herd moved from Hilltop to Creek Bottom two days ago: a logged move.
  await updateGroup(
    run.trx,
    run.scope,
    idOf(seeded.groups, 'herd'),
    { paddock_id: idOf(seeded.paddocks, 'creek') },
    now - 2 * DAY_MS,
  );
}

async function seedAnimals(run: SeedRun): Promise<void> {
  const { now, seeded } = run;
  // An EID the account already uses on another test farm stays with that animal.
  const eids = ANIMALS.map((a, i) => (a.eid ? sampleEid(i) : null));
  const taken = await takenEids(
    run.trx,
    run.scope,
    eids.filter((e): e is string => e !== null),
  );
  for (const [i, a] of ANIMALS.entries()) {
    const eid = eids[i];
    const animal = await createAnimal(
      run.trx,
      run.scope,
      run.farmId,
      {
        species: a.species,
        name: a.name,
        tag: a.tag,
        ...(eid && !taken.has(eid) ? { eid } : {}),
        sex: a.sex,
        breed: a.breed,
        birth_date: toIso(Math.floor((now - a.bornDaysAgo * DAY_MS) / DAY_MS) * DAY_MS),
        ...(a.group ? { group_id: idOf(seeded.groups, a.group) } : {}),
        paddock_id: idOf(seeded.paddocks, a.paddock),
        ...(a.notes ? { notes: a.notes } : {}),
        ...(a.fields ? { fields: a.fields } : {}),
      },
      run.next(),
    );
    seeded.animals.set(a.key, animal.id);
  }
}

async function seedDevices(run: SeedRun): Promise<void> {
  const { seeded } = run;
  let deviceTick = run.now - 60 * DAY_MS;
  for (const d of DEVICES) {
    const device = await createDevice(
      run.trx,
      run.scope,
      run.farmId,
      {
        type: d.type,
        name: d.name,
        serial: d.serial,
        firmware: d.firmware,
        ...(d.animal ? { animal_id: idOf(seeded.animals, d.animal) } : {}),
        ...(d.group ? { group_id: idOf(seeded.groups, d.group) } : {}),
        ...(d.lat !== undefined && d.lon !== undefined ? { lat: d.lat, lon: d.lon } : {}),
      },
      { now: ++deviceTick },
    );
    seeded.devices.set(d.key, device.id);
  }
}

/**
 * TRACK_DAYS of positions, one an hour, ending the day before the readings begin: a house steps east at
 * the default rate towards where it stands; a tracker wanders within about 50 m of its place (seeded, so
 * every sample farm has the same tracks).
 */
async function seedTracks(run: SeedRun): Promise<void> {
  const end = run.now - DAY_MS;
  const hours = TRACK_DAYS * 24;
  for (const [n, track] of TRACKS.entries()) {
    const deviceId = idOf(run.seeded.devices, track.device);
    const random = mulberry32(7_919 * (n + 1));
    let dx = 0;
    let dy = 0;
    const rows = Array.from({ length: hours }, (_, i) => {
      const at = end - (hours - i) * HOUR_MS;
      if (track.kind === 'house') {
        // Metres still to go before `now`, at the daily rate.
        dx = -((run.now - at) / DAY_MS) * DEFAULT_MOVE_RATE_M_PER_DAY;
        dy = 0;
      } else {
        dx = Math.max(-50, Math.min(50, dx + (random() - 0.5) * 20));
        dy = Math.max(-50, Math.min(50, dy + (random() - 0.5) * 20));
      }
      const [lon, lat] = offsetM([track.lon, track.lat], dx, dy);
      return {
        device_id: deviceId,
        farm_id: run.farmId,
        lat: Number(lat.toFixed(6)),
        lon: Number(lon.toFixed(6)),
        at,
      };
    });
    await insertSampleTrack(run.trx, rows);
  }
}

async function seedCommands(run: SeedRun): Promise<void> {
  const oldestFirst = [...COMMANDS].sort((a, b) => b.hoursAgo - a.hoursAgo);
  for (const c of oldestFirst) {
    await queueCommand(
      run.trx,
      run.scope,
      idOf(run.seeded.devices, c.device),
      { command: c.command, params: c.params },
      { now: run.now - c.hoursAgo * HOUR_MS },
    );
  }
}

/** A day of readings, sent the way devices send them; the alert engine opens what follows. */
async function seedReadings(run: SeedRun): Promise<void> {
  for (const d of DEVICES) {
    const deviceId = idOf(run.seeded.devices, d.key);
    for (const report of planReports(seriesFor(d.key, run.clock))) {
      await ingestReport(run.trx, { deviceId, transport: 'sample' }, report.body, report.at);
    }
  }
}

/**
 * A week of House 1's daily water and feed for the laying flock before the day of readings, one report
 * a day at local noon, sent first (so the device's last report stays the newest): about half as much
 * again as House 1's own series gives yesterday, so yesterday is a third less water than the flock's
 * 7-day median (the sample's group.intake_drop alert), while feed holds steady.
 */
async function seedIntake(run: SeedRun): Promise<void> {
  const tz = SAMPLE_FARM.timezone;
  const deviceId = idOf(run.seeded.devices, 'house1');
  const today = localDayBounds(run.now, tz).start;
  const yesterday = localDayBounds(today - 1, tz).start;
  const total = { water: 0, feed: 0 };
  for (const tick of seriesFor('house1', run.clock).ticks) {
    if (tick.at < yesterday || tick.at >= today) continue;
    for (const r of tick.readings) {
      if (r.metric === 'water.used_l') total.water += r.value;
      if (r.metric === 'feed.dispensed_kg') total.feed += r.value;
    }
  }
  const extraYesterday = total.water > 0 ? 0 : 45;
  const base = (total.water + extraYesterday) / 0.64;
  const feed = total.feed > 0 ? total.feed : 33;
  const factors = [1, 1.03, 0.98, 1.01, 1, 0.97, 1.02];
  for (const [i, factor] of factors.entries()) {
    const day = localDayBounds(today - (factors.length + 1 - i) * DAY_MS + 12 * HOUR_MS, tz).start;
    const readings = [
      { metric: 'water.used_l', value: Math.round(base * factor * 10) / 10 },
      { metric: 'feed.dispensed_kg', value: Math.round(feed * (2 - factor) * 10) / 10 },
    ];
    await ingestReport(run.trx, { deviceId, transport: 'sample' }, { readings }, day + 12 * HOUR_MS);
  }
  if (extraYesterday > 0) {
    const readings = [
      { metric: 'water.used_l', value: extraYesterday },
      { metric: 'feed.dispensed_kg', value: feed },
    ];
    await ingestReport(run.trx, { deviceId, transport: 'sample' }, { readings }, yesterday + 12 * HOUR_MS);
  }
}

async function seedEvents(run: SeedRun): Promise<void> {
  const { now, clock, seeded } = run;
  const time = { now, clock, local: (due: LocalDue) => dueAt(due, now, SAMPLE_FARM.timezone) };
  const events = EVENTS.map((e) => ({
    type: e.type,
    ...subjectOf(seeded, e.subject),
    data: e.data,
    at: e.at(time),
  }));
  ANIMALS.filter((a) => a.weighedKg !== undefined).forEach((a, i) => {
    events.push({
      type: 'weight',
      subject_type: 'animal',
      subject_id: idOf(seeded.animals, a.key),
      data: { kg: a.weighedKg, method: 'scale', device_id: idOf(seeded.devices, 'reader') },
      at: weighingAt(clock, i),
    });
  });
  events.sort((a, b) => a.at - b.at);
  for (const { at, ...e } of events) {
    await createEvent(
      run.trx,
      run.scope,
      run.farmId,
      { ...e, at: toIso(at) },
      Math.max(at, now - DAY_MS * 7),
    );
  }
}

async function seedTasks(run: SeedRun): Promise<void> {
  const { now } = run;
  for (const t of TASKS) {
    const due = t.due ? dueAt(t.due, now, SAMPLE_FARM.timezone) : null;
    const created =
      t.status === 'done' && due !== null ? due + 2 * HOUR_MS : now - t.createdDaysAgo * DAY_MS - HOUR_MS;
    const subjectId = t.subject ? subjectOf(run.seeded, t.subject).subject_id : null;
    const alertId = t.alertRule ? await findActiveAlertId(run.trx, run.farmId, t.alertRule) : null;
    await createTask(
      run.trx,
      run.scope,
      run.farmId,
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
}

/**
 * Fills an empty sample farm. Runs inside the caller's transaction; `now` is the moment everything
 * is relative to. The seed's webhook events are marked dispatched: they describe the farm as it is,
 * not things that happened, so a webhook on the sample farm is not flooded by a reset.
 */
export async function seedSampleFarm(trx: Db, scope: Scope, farmId: string, now: number): Promise<void> {
  const pendingBefore = await pendingOutboxIds(trx, farmId);
  let tick = now - SAMPLE_FARM_AGE_DAYS * DAY_MS;
  const run: SeedRun = {
    trx,
    scope,
    farmId,
    now,
    clock: new SampleClock({
      now,
      timezone: SAMPLE_FARM.timezone,
      lat: SAMPLE_FARM.lat,
      lon: SAMPLE_FARM.lon,
    }),
    seeded: { paddocks: new Map(), groups: new Map(), animals: new Map(), devices: new Map() },
    next: () => ++tick,
  };
  await seedPaddocks(run);
  await seedGroups(run);
  await seedAnimals(run);
  await seedBreeding(trx, scope, farmId, run.seeded.animals, now);
  await seedDevices(run);
  await seedTracks(run);
  await seedCommands(run);
  await seedIntake(run);
  await seedReadings(run);
  // The background passes, for this farm at its `now`: the quiet weather station's device.quiet alert
  // and the layers' group.intake_drop.
  await checkQuietDevices(trx, now, { farmId });
  await checkIntake(trx, now, { farmId });
  // A rule of the farm's own, sustained: damp litter only matters when it lasts. Added after the
  // readings, so it shows in the rule list without changing the seeded alerts.
  await createRule(
    trx,
    scope,
    farmId,
    {
      name: 'house.damp',
      metric: 'climate.humidity_pct',
      direction: 'above',
      watch: 85,
      urgent: 92,
      clear: 75,
      device_type: 'house',
      for_s: 1800,
    },
    now - HOUR_MS,
  );
  await seedEvents(run);
  await seedHerdBook(trx, scope, farmId, run.seeded, now);
  await seedWeights(trx, scope, farmId, now);
  await seedTasks(run);
  await markSeedEventsDispatched(trx, farmId, pendingBefore, now);
}
