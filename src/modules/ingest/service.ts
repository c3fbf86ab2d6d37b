/**
 * Device ingest: one report, one transaction. Readings, state, battery/position/firmware, device
 * events and the alert engine's work commit together or not at all; queued commands ride back on
 * the response.
 */
import { randomUUID } from 'node:crypto';
import { inGroupTransaction } from '../../db/group-commit.ts';
import type { Db } from '../../db/schema.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { serverFarmEventWriter } from '../../domain/farm-events.ts';
import { impossibleWeight } from '../../domain/weights.ts';
import { parseJson } from '../../lib/json.ts';
import { countReport, type ReportTransport } from '../../lib/metrics.ts';
import { parseIso } from '../../lib/time.ts';
import { evaluateReport } from '../alert-engine/engine.ts';
import type { IngestedReport } from '../alert-engine/report.ts';
import { findAnimalByEid } from '../animals/repository.ts';
import { deliveredCommands } from '../commands/service.ts';
import { MAX_STATE_BYTES, mergeState } from '../devices/state.ts';
import { recordFarmEvent } from '../events/service.ts';
import { placeDevice } from '../grazing/placement.ts';
import { prepareReadings } from '../readings/service.ts';
import { reportCommitted } from '../stream/report-signal.ts';
import { DEFAULT_MAX_CLOCK_SKEW_MS, refuseFutureTimes } from './clock.ts';
import { touchReportingDevice } from './report-writes.ts';
import {
  carriesPosition,
  claimReportKey,
  type DeviceTouch,
  pruneReportKeys,
  saveDeviceState,
} from './repository.ts';
import type { ImpossibleWeight, IngestInput, IngestResult } from './schemas.ts';

export type { IngestInput, IngestResult } from './schemas.ts';

/** The reporting device, as the device key identified it. */
export interface IngestCaller {
  deviceId: string;
  /** How the report arrived, for the metrics (`sample`: a sample farm's seeded history); HTTP when absent. */
  transport?: ReportTransport;
}

/** The service's settings a report is judged by. */
export interface IngestOptions {
  /** How far ahead of `now` a reading or event may be dated (FARMSTEAD_MAX_CLOCK_SKEW_S); default 300 s. */
  maxClockSkewMs?: number;
  /**
   * An MQTT report's idempotence key (the external broker's consumer): recorded in the report's
   * transaction; a report handed over again (`redelivered`) whose key was recorded within the last hour
   * is not stored again (ReportAlreadyStored).
   */
  delivery?: { digest: string; redelivered: boolean };
}

/** How long an MQTT report's key keeps a redelivered copy from being stored again. */
export const REPORT_KEY_WINDOW_MS = 3_600_000;

/** Forgets MQTT report keys past their hour (the `mqtt.prune` job); returns how many went. */
export function pruneMqttReportKeys(db: Db, now: number): Promise<number> {
  return pruneReportKeys(db, now - REPORT_KEY_WINDOW_MS);
}

/** Thrown by ingestReport for a redelivered MQTT report that was already stored: nothing was written. */
export class ReportAlreadyStored extends Error {
  constructor() {
    super('This report was already stored');
  }
}

function prepareEvents(
  events: NonNullable<IngestInput['events']>,
  receivedAt: number,
): { type: string; data: Record<string, unknown>; at: number }[] {
  return events.map((e, i) => {
    if (e.type.trim() === '') throw invalid(`events[${i}].type`, `events[${i}].type must not be blank.`);
    const writer = serverFarmEventWriter(e.type);
    if (writer !== null) {
      // It would pass for the server's own record (an alert's escalation) in the log and the webhooks.
      throw invalid(`events[${i}].type`, `events[${i}].type "${e.type}" is written only by ${writer}.`);
    }
    let at = receivedAt;
    if (e.at !== undefined) {
      const parsed = parseIso(e.at);
      if (parsed === null) throw invalid(`events[${i}].at`, `events[${i}].at must be an ISO 8601 date-time.`);
      at = parsed;
    }
    return { type: e.type, data: e.data ?? {}, at };
  });
}

/**
 * Readings that name an animal by EID (a scale head weighing animals in turn) also go into that animal's
 * history: `weight.kg` as a `weight` event, other metrics as a `reading` event. Returns the EIDs that
 * match no animal on the farm, and the weights that cannot be their animal's (a sheep of 5,000 kg: a scale
 * not zeroed, a tag read at the wrong moment), stored as readings but kept out of its weights and gains, as
 * POST …/weights refuses them.
 */
async function recordAnimalReadings(
  trx: Db,
  device: { id: string; farm_id: string },
  inputs: NonNullable<IngestInput['readings']>,
  prepared: ReadonlyArray<{ metric: string; value: number; unit: string | null; at: number }>,
  kept: readonly number[],
): Promise<{ unmatched: string[]; impossible: ImpossibleWeight[] }> {
  if (!inputs.some((input) => input.eid !== undefined)) return { unmatched: [], impossible: [] };
  const unmatched = new Set<string>();
  const impossible: ImpossibleWeight[] = [];
  const animals = new Map<string, { id: string; species: string } | null>();
  for (const [i, input] of inputs.entries()) {
    const reading = prepared[i];
    if (input.eid === undefined || !reading) continue;
    if (!animals.has(input.eid)) {
      animals.set(input.eid, await findAnimalByEid(trx, device.farm_id, input.eid));
    }
    const animal = animals.get(input.eid);
    if (!animal) {
      unmatched.add(input.eid);
      continue;
    }
    const animalId = animal.id;
    const weight = reading.metric === 'weight.kg';
    const why = weight ? impossibleWeight(reading.value, animal.species) : null;
    if (why !== null) {
      impossible.push({ index: kept[i] ?? i, eid: input.eid, message: why });
      continue;
    }
    await recordFarmEvent(trx, device.farm_id, {
      type: weight ? 'weight' : 'reading',
      subject_type: 'animal',
      subject_id: animalId,
      data: weight
        ? { kg: reading.value, eid: input.eid, device_id: device.id }
        : {
            metric: reading.metric,
            value: reading.value,
            unit: reading.unit,
            eid: input.eid,
            device_id: device.id,
          },
      at: reading.at,
    });
  }
  return { unmatched: [...unmatched], impossible };
}

/** The report's own time (`at`), else receipt: the default of its readings and events and its status's time. */
function reportTime(at: string | undefined, now: number): number {
  if (at === undefined) return now;
  const parsed = parseIso(at);
  if (parsed === null) throw invalid('at', 'at must be an ISO 8601 date-time.');
  return parsed;
}

function checkMembers(body: IngestInput): void {
  for (const param of ['battery', 'lat', 'lon'] as const) {
    const value = body[param];
    if (value !== undefined && !Number.isFinite(value))
      throw invalid(param, `${param} must be a finite number.`);
  }
  // A position is a pair: half of one beside the other half of the last would be a place never reported.
  if ((body.lat === undefined) !== (body.lon === undefined)) {
    const missing = body.lat === undefined ? 'lat' : 'lon';
    throw invalid(
      missing,
      `${missing} is required with ${missing === 'lat' ? 'lon' : 'lat'}: a position is both.`,
    );
  }
}

/**
 * Stores one device report. Everything is checked before anything is written, and all writes share
 * one transaction (the caller's when `db` is one), so a rejected report leaves no trace. Reports
 * arriving together commit together, each still all or nothing (db/group-commit.ts). Readings and events
 * dated too far ahead of `now` are the one part a report may have refused while the rest is stored
 * (clock.ts): the answer lists them, and the device gets a device.clock alert.
 */
export async function ingestReport(
  db: Db,
  caller: IngestCaller,
  body: IngestInput | undefined,
  now: number = Date.now(),
  options: IngestOptions = {},
): Promise<IngestResult> {
  const input = body ?? {};
  checkMembers(input);
  const skewMs = options.maxClockSkewMs ?? DEFAULT_MAX_CLOCK_SKEW_MS;
  const madeAt = reportTime(input.at, now);
  const sane = refuseFutureTimes(
    prepareReadings(input.readings ?? [], madeAt),
    prepareEvents(input.events ?? [], madeAt),
    now,
    skewMs,
  );
  const { readings, events, refused, refusedEvents, kept } = sane;
  const readingInputs = kept ? (input.readings ?? []).filter((_, i) => kept[i]) : (input.readings ?? []);
  // Each kept reading's place in `readings` as sent (the answer names readings by it).
  const keptIndexes = (input.readings ?? []).map((_, i) => i).filter((i) => !kept || kept[i]);

  const status = {
    ...(input.battery !== undefined ? { battery: input.battery } : {}),
    ...(input.lat !== undefined ? { lat: input.lat } : {}),
    ...(input.lon !== undefined ? { lon: input.lon } : {}),
    ...(input.firmware !== undefined ? { firmware: input.firmware } : {}),
  };
  const touch: Omit<DeviceTouch, 'report_token'> = {
    last_seen_at: now,
    // A clock ahead dates the status at receipt: it must not stand against the reports after it.
    ...(Object.keys(status).length > 0 ? { status_at: Math.min(madeAt, now), ...status } : {}),
  };

  let farmId = '';
  const result = await inGroupTransaction(db, caller.deviceId, async (trx) => {
    // The device UPDATE comes first and locks the device row, so concurrent reports from one device merge
    // state in turn; what else it does on each engine is report-writes.ts's.
    // A new token for every attempt: one that rolled back must never be taken for the one that committed.
    const stamped: DeviceTouch = { ...touch, report_token: randomUUID() };
    const touched = await touchReportingDevice(
      trx,
      caller.deviceId,
      stamped,
      readings,
      input.state !== undefined,
    );
    if (!touched) throw new AppError('unauthorized', 'This device no longer exists; its key is not valid.');
    const { device, farm } = touched;
    // After the device row is locked: two copies of one report from one device take their turns here.
    if (
      options.delivery &&
      !(await claimReportKey(trx, device.id, options.delivery, now, REPORT_KEY_WINDOW_MS))
    ) {
      throw new ReportAlreadyStored();
    }
    farmId = device.farm_id;

    if (input.state !== undefined) {
      // Read with the device's update whenever the report carries state (touchDevice's withState).
      if (device.state === undefined) throw new Error(`device ${device.id}: state not read`);
      const merged = JSON.stringify(
        mergeState(parseJson<Record<string, unknown>>(device.state, {}), input.state),
      );
      if (Buffer.byteLength(merged) > MAX_STATE_BYTES) {
        throw invalid(
          'state',
          `The device state would exceed ${MAX_STATE_BYTES} bytes; remove keys with null.`,
        );
      }
      await saveDeviceState(trx, device.id, merged);
    }

    // A new position may be in another paddock (grazing): placed again only when it moved since the last
    // placing, so a report without a position, or at the same one, runs no statement for it.
    if (carriesPosition(stamped) && (device.lat !== device.placed_lat || device.lon !== device.placed_lon)) {
      await placeDevice(trx, device.id, now, true);
    }

    await touched.storeReadings();

    const stored: IngestedReport['events'][number][] = [];
    for (const e of events) {
      const event = await recordFarmEvent(
        trx,
        device.farm_id,
        { type: e.type, subject_type: 'device', subject_id: device.id, data: e.data, at: e.at },
        now,
      );
      stored.push({ event_id: event.id, type: e.type, data: e.data, at: e.at });
    }

    const animalReadings = await recordAnimalReadings(trx, device, readingInputs, readings, keptIndexes);
    const unmatchedEids = animalReadings.unmatched;

    // The alert engine's seam: it sees exactly what this report stored, inside the same transaction.
    await evaluateReport(trx, {
      farm,
      device: {
        id: device.id,
        name: device.name,
        type: device.type,
        animal_id: device.animal_id,
        animal: touched.animal,
        group_id: device.group_id,
        quiet_level: device.quiet_level,
        report_token: device.report_token,
        report_token_prev: device.report_token_prev,
        clock_skewed: device.clock_skewed,
      },
      readings,
      events: stored,
      receivedAt: now,
      clock: {
        refused: refused.length + refusedEvents.length,
        furthest: sane.furthest,
        stored: readings.length + stored.length,
        toleranceMs: skewMs,
      },
      maxClockSkewMs: skewMs,
    });

    const commands = deliveredCommands(await touched.handOutCommands());
    return {
      ok: true,
      accepted: readings.length,
      commands,
      ...(unmatchedEids.length > 0 ? { unmatched_eids: unmatchedEids } : {}),
      ...(animalReadings.impossible.length > 0 ? { impossible_weights: animalReadings.impossible } : {}),
      ...(refused.length > 0 ? { refused } : {}),
      ...(refusedEvents.length > 0 ? { refused_events: refusedEvents } : {}),
    } satisfies IngestResult;
  });
  // Counted once committed: a unit of work may run more than once (a retried or regrouped transaction).
  countReport(caller.transport ?? 'http', readings.length);
  // Live streams that asked for device.reported frames (one Map lookup when none did).
  reportCommitted(farmId);
  return result;
}
