/**
 * The farm as a GeoJSON FeatureCollection (docs/map.md): paddocks, devices at their last position, active
 * alerts where their subject is, and the routes of houses moving to a paddock. Each feature's properties
 * come from the record its own service returns, so what those records gain shows on the map too.
 */
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import type { Position } from 'geojson';
import { type Page, parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { DEFAULT_MOVE_RATE_M_PER_DAY, readHouseState } from '../../domain/house-state.ts';
import { distanceM } from '../../lib/geo.ts';
import { isPlainObject, parseJson } from '../../lib/json.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { type Alert, listAlerts } from '../alerts/service.ts';
import { getAnimal } from '../animals/service.ts';
import type { Device } from '../devices/schemas.ts';
import { listDevices } from '../devices/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { getGroup } from '../groups/service.ts';
import { type PaddockGeometry, pointInside, readPaddockGeometry } from '../paddocks/geometry.ts';
import type { Paddock } from '../paddocks/schemas.ts';
import { farmPaddocks } from '../paddocks/service.ts';
import { houseMoveCommands } from './repository.ts';
import type { FarmMap, MapFeature } from './schemas.ts';

/** Every page of a list, oldest page last (a farm's records; pages of the largest size). */
async function everyPage<T>(fetch: (before: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const all: T[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await fetch(before);
    all.push(...page.data);
    if (!page.has_more || !page.next_before) return all;
    before = page.next_before;
  }
}

const point = (at: Position) => ({ type: 'Point', coordinates: at });

/** The device's last position, [lon, lat], or null while it has none. */
function positionOf(device: Device): Position | null {
  return device.lat === null || device.lon === null ? null : [device.lon, device.lat];
}

interface Placed {
  paddock: Paddock;
  geometry: PaddockGeometry | null;
}

function paddockFeature({ paddock, geometry }: Placed): MapFeature {
  const { geometry: stored, ...record } = paddock;
  const problem = stored && !geometry ? readPaddockGeometry(stored).problem : null;
  return {
    type: 'Feature',
    id: paddock.id,
    geometry: (geometry as unknown as Record<string, unknown> | null) ?? null,
    properties: { ...record, kind: 'paddock', ...(problem ? { geometry_problem: problem } : {}) },
  };
}

function deviceFeature(device: Device, at: Position): MapFeature {
  return {
    type: 'Feature',
    id: device.id,
    geometry: point(at),
    properties: {
      id: device.id,
      name: device.name,
      type: device.type,
      battery: device.battery,
      last_seen_at: device.last_seen_at,
      // Derived from the position by the grazing work (devices.paddock_id); null until the record has it.
      paddock_id: (device as Device & { paddock_id?: string | null }).paddock_id ?? null,
      group_id: device.group_id,
      animal_id: device.animal_id,
      kind: 'device',
    },
  };
}

/** Where an alert's subject is: a device's position, inside a paddock, or inside an animal's or group's paddock. */
async function placeAlert(
  db: Db,
  scope: Scope,
  alert: Alert,
  devices: Map<string, Device>,
  paddocks: Map<string, Placed>,
): Promise<Position | null> {
  const inPaddock = (id: string | null) => {
    const geometry = id ? paddocks.get(id)?.geometry : null;
    return geometry ? pointInside(geometry) : null;
  };
  try {
    switch (alert.subject_type) {
      case 'device': {
        const device = devices.get(alert.subject_id);
        return device ? positionOf(device) : null;
      }
      case 'paddock':
        return inPaddock(alert.subject_id);
      case 'group':
        return inPaddock((await getGroup(db, scope, alert.subject_id)).paddock_id);
      case 'animal': {
        // A tracker the animal wears knows better than its paddock.
        const worn = [...devices.values()].find((d) => d.animal_id === alert.subject_id && positionOf(d));
        if (worn) return positionOf(worn);
        return inPaddock((await getAnimal(db, scope, alert.subject_id)).paddock_id);
      }
      default:
        return null;
    }
  } catch (err) {
    // A subject deleted since the alert opened has no place.
    if (err instanceof AppError && err.code === 'not_found') return null;
    throw err;
  }
}

function alertFeature(alert: Alert, at: Position): MapFeature {
  return {
    type: 'Feature',
    id: alert.id,
    geometry: point(at),
    properties: {
      id: alert.id,
      rule: alert.rule,
      severity: alert.severity,
      status: alert.status,
      title: alert.title,
      subject_type: alert.subject_type,
      subject_id: alert.subject_id,
      words: alert.words ?? null,
      kind: 'alert',
    },
  };
}

/**
 * A house's route to the paddock it is moving to: its newest pending move.to_paddock (queued or delivered),
 * else the plan its state follows (stepping with `move.target_paddock_id`, the newest done command to that
 * paddock). None once the house stands in the paddock.
 */
async function houseRoute(
  db: Db,
  house: Device,
  from: Position,
  paddocks: Map<string, Placed>,
  now: number,
): Promise<MapFeature | null> {
  const commands = await houseMoveCommands(db, house.id);
  const target = (c: { params: string }) => {
    const params = parseJson<unknown>(c.params, null);
    return isPlainObject(params) && typeof params.paddock_id === 'string' ? params.paddock_id : null;
  };
  const state = readHouseState(house.state);
  const pending = commands.find((c) => c.status !== 'done' && target(c));
  const planned =
    pending ??
    (state.move.status === 'stepping' && state.move.target_paddock_id
      ? commands.find((c) => c.status === 'done' && target(c) === state.move.target_paddock_id)
      : undefined);
  const paddockId = planned ? target(planned) : null;
  const geometry = paddockId ? paddocks.get(paddockId)?.geometry : null;
  if (!planned || !paddockId || !geometry) return null;
  if (booleanPointInPolygon(from, geometry)) return null;
  const to = pointInside(geometry);
  const metersPerDay =
    state.move.meters_per_day > 0 ? state.move.meters_per_day : DEFAULT_MOVE_RATE_M_PER_DAY;
  const distance = Math.round(distanceM(from, to));
  return {
    type: 'Feature',
    id: planned.id,
    geometry: { type: 'LineString', coordinates: [from, to] },
    properties: {
      device_id: house.id,
      command_id: planned.id,
      paddock_id: paddockId,
      meters_per_day: metersPerDay,
      distance_m: distance,
      arrival_at: toIso(now + (distance / metersPerDay) * DAY_MS),
      kind: 'route',
    },
  };
}

/** The farm map: every paddock, every device with a position, active alerts with a place, house routes. */
export async function buildFarmMap(db: Db, scope: Scope, farmId: string, now = Date.now()): Promise<FarmMap> {
  const farm = await requireFarm(db, scope, farmId);
  const page = (before: string | undefined) => parsePage({ limit: 500, ...(before ? { before } : {}) });
  const paddockList = await farmPaddocks(db, scope, farm.id, now);
  const deviceList = await everyPage((before) => listDevices(db, scope, farm.id, {}, page(before)));
  const alertList = await everyPage((before) =>
    listAlerts(db, scope, farm.id, { status: 'active' }, { limit: 500, ...(before ? { before } : {}) }),
  );
  const paddocks = new Map<string, Placed>(
    paddockList.map((p) => [p.id, { paddock: p, geometry: readPaddockGeometry(p.geometry).geometry }]),
  );
  const devices = new Map(deviceList.map((d) => [d.id, d]));

  const features: MapFeature[] = [...paddocks.values()].map(paddockFeature);
  for (const device of deviceList) {
    const at = positionOf(device);
    if (at) features.push(deviceFeature(device, at));
  }
  for (const alert of alertList) {
    const at = await placeAlert(db, scope, alert, devices, paddocks);
    if (at) features.push(alertFeature(alert, at));
  }
  for (const house of deviceList) {
    const at = positionOf(house);
    if (house.type !== 'house' || !at) continue;
    const route = await houseRoute(db, house, at, paddocks, now);
    if (route) features.push(route);
  }
  return { type: 'FeatureCollection', features };
}
