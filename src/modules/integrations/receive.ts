/**
 * The uplink URL: whatever a network server posts there. The secret is checked first (401, nothing read or
 * stored); the body is read by the integration's network server adapter (network-servers.ts). An uplink is
 * one transaction: its key claimed (the integration, the device and the server's id for the uplink: a
 * retried or duplicated uplink finds it taken and stores nothing), its device found by DevEUI, its decoded
 * fields mapped, and one report stored through the same ingest service as HTTP and MQTT reports, with the
 * network server's time as the report's time (its readings', battery's and position's: an uplink handed over
 * late replaces no newer battery or position). A position the server resolved is a report of lat/lon, a
 * battery status a report of the battery. An unknown DevEUI is kept in the integration's unmatched list.
 */

import { inGroupTransaction } from '../../db/group-commit.ts';
import type { Db, Trx } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../domain/errors.ts';
import { parseJson } from '../../lib/json.ts';
import { type IngestOptions, ingestReport } from '../ingest/service.ts';
import { applyDownlinkEvent, downlinkRowsFor } from './downlinks.ts';
import { effectiveSettings } from './effective.ts';
import { applyMapping, type Mapping, toIngestBody } from './mapping.ts';
import type { NetworkEvent } from './network-events.ts';
import { networkServer } from './network-servers.ts';
import type { Encoder } from './presets.ts';
import {
  claimUplink,
  deleteLink,
  deviceWithEui,
  type IntegrationRow,
  insertDownlinks,
  linkByEui,
  linkOfDevice,
  linksByRemoteId,
  linkUnlessLinked,
  recordLastUplink,
  upsertUnmatched,
} from './repository.ts';
import type { IntegrationDefault, UplinkOutcome } from './schemas.ts';
import { integrationForSecret } from './service.ts';

type DeviceEvent = Exclude<NetworkEvent, { kind: 'ignored' | 'downlink' }>;
type DownlinkEvent = Extract<NetworkEvent, { kind: 'downlink' }>;

interface Carried {
  deviceId: string;
  /** The Farmstead device's name: what integration defaults match by pattern. */
  name: string;
  own: { preset: string | null; mapping: Mapping | null; encoder: Encoder | null };
}

/**
 * The device that carries this DevEUI: the integration's link (while the device's serial still holds the
 * DevEUI), else a device of the farm whose serial is the DevEUI (`eui:<hex>` or bare hex, any case), which
 * is linked now. Null when the farm has none. `again`: this is the second look, after another uplink linked
 * the device first.
 */
async function carriedDevice(
  trx: Trx,
  integration: IntegrationRow,
  event: DeviceEvent,
  now: number,
  again = false,
): Promise<Carried | null> {
  const link = await linkByEui(trx, integration.id, event.devEui);
  if (link) {
    if (serialHolds(link.serial, event.devEui)) {
      return { deviceId: link.device_id, name: link.device_name, own: ownOf(link) };
    }
    // The device's serial now names another DevEUI: this one is no longer it.
    await deleteLink(trx, link.device_id);
  }
  const device = await deviceWithEui(trx, integration.farm_id, event.devEui);
  if (!device) return null;
  const elsewhere = await linkOfDevice(trx, device.id);
  if (elsewhere) {
    // Carried by another integration of the farm (a second network server hears it): reports still count.
    return { deviceId: device.id, name: device.name, own: ownOf(elsewhere) };
  }
  const linked = await linkUnlessLinked(trx, {
    device_id: device.id,
    integration_id: integration.id,
    dev_eui: event.devEui,
    remote_id: event.remoteId,
    preset: null,
    mapping: null,
    encoder: null,
    last_uplink: null,
    last_uplink_at: null,
    created_at: now,
  });
  if (!linked && !again) {
    // Another uplink sent at the same moment (a duplicate of this one, or another network server's copy)
    // linked the device first: its link stands, so look again as for a device already linked. The claim
    // that follows tells whether this one is the same uplink.
    return carriedDevice(trx, integration, event, now, true);
  }
  return { deviceId: device.id, name: device.name, own: { preset: null, mapping: null, encoder: null } };
}

async function keepUnmatched(
  trx: Trx,
  integration: IntegrationRow,
  event: DeviceEvent,
  now: number,
): Promise<void> {
  const uplink = event.kind === 'uplink' ? event : null;
  // A clock ahead orders it as heard now, as a carried device's last uplink: it never hides the ones after it.
  const heard = Math.min(event.at, now);
  await upsertUnmatched(trx, {
    integration_id: integration.id,
    dev_eui: event.devEui,
    device_name: event.deviceName,
    remote_id: event.remoteId,
    profile: event.profile,
    decoded: uplink?.decoded ? JSON.stringify(uplink.decoded) : null,
    f_port: uplink?.fPort ?? null,
    uplinks: uplink ? 1 : 0,
    first_seen_at: heard,
    last_seen_at: heard,
  });
}

/** Claims the event's key, by integration, device and the server's id; false when it was stored before. */
function claimed(
  trx: Trx,
  integration: IntegrationRow,
  event: { devEui: string; dedupKey: string },
  now: number,
): Promise<boolean> {
  return claimUplink(trx, { integrationId: integration.id, devEui: event.devEui, key: event.dedupKey }, now);
}

/** The report of an uplink from a carried device: its key claimed first, so a repeat stores nothing. */
async function storeCarried(
  trx: Trx,
  integration: IntegrationRow,
  event: Extract<NetworkEvent, { kind: 'uplink' }>,
  carried: Carried,
  now: number,
  options: IngestOptions,
): Promise<UplinkOutcome> {
  if (!(await claimed(trx, integration, event, now))) return { ok: true, outcome: 'duplicate' };
  const defaults = parseJson<IntegrationDefault[]>(integration.defaults, []);
  const { mapping } = effectiveSettings(carried.own, defaults, {
    name: carried.name,
    profile: event.profile,
  });
  const link = { rssi: event.rssi, snr: event.snr };
  const body = toIngestBody(
    applyMapping(event.decoded ?? {}, mapping, link),
    new Date(event.at).toISOString(),
  );
  const result = await ingestReport(
    trx,
    { deviceId: carried.deviceId, transport: 'lorawan' },
    body,
    now,
    options,
  );
  await recordLastUplink(trx, carried.deviceId, {
    last_uplink: JSON.stringify({
      at: event.at,
      f_port: event.fPort,
      f_cnt: event.fCnt,
      decoded: event.decoded,
      ...link,
      profile: event.profile,
    }),
    // A clock ahead (its readings refused) orders it as received now: it never hides the uplinks after it.
    last_uplink_at: Math.min(event.at, now),
    ...(event.remoteId ? { remote_id: event.remoteId } : {}),
  });
  // Commands the report handed out go to the network server as downlinks (downlinks.ts sends them).
  await insertDownlinks(trx, downlinkRowsFor(result.commands, integration.id, now));
  return { ok: true, outcome: 'stored', device_id: carried.deviceId, accepted: result.accepted };
}

/** An uplink whose device is not linked yet (or no longer): found by serial and linked, or kept unmatched. */
async function storeUplink(
  trx: Trx,
  integration: IntegrationRow,
  event: Extract<NetworkEvent, { kind: 'uplink' }>,
  now: number,
  options: IngestOptions,
): Promise<UplinkOutcome> {
  const carried = await carriedDevice(trx, integration, event, now);
  if (!carried) {
    if (!(await claimed(trx, integration, event, now))) return { ok: true, outcome: 'duplicate' };
    await keepUnmatched(trx, integration, event, now);
    return { ok: true, outcome: 'unmatched' };
  }
  return storeCarried(trx, integration, event, carried, now, options);
}

function serialHolds(serial: string | null, devEui: string): boolean {
  const s = serial?.toLowerCase() ?? '';
  return s === devEui || s === `eui:${devEui}`;
}

function ownOf(link: {
  preset: string | null;
  mapping: string | null;
  encoder: string | null;
}): Carried['own'] {
  return {
    preset: link.preset,
    mapping: parseJson<Mapping | null>(link.mapping, null),
    encoder: parseJson<Encoder | null>(link.encoder, null),
  };
}

/**
 * An uplink of a device the integration already carries (the usual case) is a unit of that device's group
 * commit, as a report to /v1/ingest is (db/group-commit.ts): uplinks arriving together share a transaction.
 * Anything else (a first uplink, an unknown DevEUI) runs in a transaction of its own.
 */
async function receiveUp(
  db: Db,
  integration: IntegrationRow,
  event: Extract<NetworkEvent, { kind: 'uplink' }>,
  now: number,
  options: IngestOptions,
): Promise<UplinkOutcome> {
  const link = await linkByEui(db, integration.id, event.devEui);
  if (link && serialHolds(link.serial, event.devEui)) {
    const carried = { deviceId: link.device_id, name: link.device_name, own: ownOf(link) };
    return inGroupTransaction(db, link.device_id, (trx) =>
      storeCarried(trx, integration, event, carried, now, options),
    );
  }
  return inTransaction(db, (trx) => storeUplink(trx, integration, event, now, options));
}

async function handle(
  trx: Trx,
  integration: IntegrationRow,
  event: DeviceEvent,
  now: number,
  options: IngestOptions,
): Promise<UplinkOutcome> {
  switch (event.kind) {
    case 'uplink':
      return storeUplink(trx, integration, event, now, options);
    case 'join': {
      const carried = await carriedDevice(trx, integration, event, now);
      if (carried) return { ok: true, outcome: 'ignored', device_id: carried.deviceId };
      await keepUnmatched(trx, integration, event, now);
      return { ok: true, outcome: 'unmatched' };
    }
    case 'status':
      return storeState(
        trx,
        integration,
        event,
        event.battery === null ? null : { battery: event.battery },
        now,
        options,
      );
    case 'location':
      return storeState(trx, integration, event, { lat: event.lat, lon: event.lon }, now, options);
  }
}

/**
 * A battery status or a resolved position: a report of the device's state through the ingest service (the
 * path a report's battery, lat and lon take), claimed first like an uplink. Nothing for an unknown device.
 */
async function storeState(
  trx: Trx,
  integration: IntegrationRow,
  event: Extract<NetworkEvent, { kind: 'status' | 'location' }>,
  state: { battery: number } | { lat: number; lon: number } | null,
  now: number,
  options: IngestOptions,
): Promise<UplinkOutcome> {
  if (!(await claimed(trx, integration, event, now))) return { ok: true, outcome: 'duplicate' };
  const carried = await carriedDevice(trx, integration, event, now);
  if (!carried || state === null) return { ok: true, outcome: 'ignored' };
  const result = await ingestReport(
    trx,
    { deviceId: carried.deviceId, transport: 'lorawan' },
    { at: new Date(event.at).toISOString(), ...state },
    now,
    options,
  );
  await insertDownlinks(trx, downlinkRowsFor(result.commands, integration.id, now));
  return { ok: true, outcome: 'stored', device_id: carried.deviceId, accepted: 0 };
}

/**
 * The device a downlink message is about, when it says: by DevEUI, else (The Things Stack's downlink_failed
 * names only device_id and application id) by the device_id its uplinks taught us, in the integration's
 * application. Null when unknown or ambiguous: the message's command ids may still find the downlink.
 */
async function downlinkDevice(
  trx: Trx,
  integration: IntegrationRow,
  device: DownlinkEvent['device'],
): Promise<string | null> {
  if (device.devEui) return (await linkByEui(trx, integration.id, device.devEui))?.device_id ?? null;
  if (!device.remoteId) return null;
  if (
    device.applicationId &&
    integration.application_id &&
    device.applicationId !== integration.application_id
  )
    return null;
  const links = await linksByRemoteId(trx, integration.id, device.remoteId);
  return links.length === 1 ? (links[0]?.device_id ?? null) : null;
}

/**
 * Receives one network server message at an integration's uplink URL. `options` are the ingest service's
 * (the clock tolerance, FARMSTEAD_MAX_CLOCK_SKEW_S), as for a report over HTTP or MQTT.
 */
export async function receiveUplink(
  db: Db,
  request: { integrationId: string; secret: string | null; event: string | undefined; body: unknown },
  now: number = Date.now(),
  options: IngestOptions = {},
): Promise<UplinkOutcome> {
  const integration = await integrationForSecret(db, request.integrationId, request.secret);
  if (!integration) {
    throw new AppError(
      'unauthorized',
      "Unknown integration or wrong secret: the network server must send `Authorization: Bearer <the integration's secret>`.",
    );
  }
  const event = networkServer(integration.type).parseEvent({ event: request.event, body: request.body }, now);
  switch (event.kind) {
    case 'ignored':
      return { ok: true, outcome: 'ignored' };
    case 'uplink':
      return receiveUp(db, integration, event, now, options);
    case 'downlink':
      return inTransaction(db, async (trx) => {
        const deviceId = await downlinkDevice(trx, integration, event.device);
        const settled = await applyDownlinkEvent(trx, integration.id, deviceId, event, now);
        return settled
          ? { ok: true, outcome: 'downlink', device_id: settled }
          : { ok: true, outcome: 'ignored' };
      });
    default:
      return inTransaction(db, (trx) => handle(trx, integration, event, now, options));
  }
}
