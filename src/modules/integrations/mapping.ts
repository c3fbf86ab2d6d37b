/**
 * From a network server's decoded payload to a Farmstead report. A mapping says, per path in the decoded
 * object (`gps.latitude`, `sensors.0.value`), what the value becomes: a reading of a metric (value × scale +
 * offset), the device's battery, latitude or longitude, or a device event when the value is set. Numeric
 * fields no entry names are kept as `lorawan.<path>` readings, so nothing is lost and a mapping can be added
 * later; `ignore` drops a field on purpose. Pure functions: no database.
 */
import { impossibleValue, unitOf } from '../../domain/metrics.ts';
import type { IngestInput } from '../ingest/schemas.ts';

export type DeviceField = 'battery' | 'lat' | 'lon';

export interface MappingEntry {
  metric?: string;
  set?: DeviceField;
  event?: string;
  /** For `event`: the value that fires it (default: any set value: true, non-zero, non-empty, not "false"). */
  when?: string | number | boolean;
  ignore?: boolean;
  scale?: number;
  offset?: number;
}

export type Mapping = Record<string, MappingEntry>;

/** The prefix of readings kept from fields no mapping names. */
export const UNMAPPED_PREFIX = 'lorawan.';
/** Link quality, from the gateway that heard the uplink best. */
export const RSSI_METRIC = 'lorawan.rssi';
export const SNR_METRIC = 'lorawan.snr';
/** Most fields of one decoded payload kept as `lorawan.*` readings (the report's cap is 1,000 readings). */
export const MAX_UNMAPPED_FIELDS = 200;

const METRIC_NAME = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
const PATH = /^[^.\s]+(\.[^.\s]+)*$/;

/** Why a mapping is not valid (naming the entry), or null. Ajv has checked the shapes already. */
export function mappingProblem(mapping: Mapping, param: string): { param: string; message: string } | null {
  for (const [path, entry] of Object.entries(mapping)) {
    const at = `${param}.${path}`;
    if (!PATH.test(path)) {
      return { param: at, message: `${at}: a path is field names joined by dots, such as gps.latitude.` };
    }
    const targets = ['metric', 'set', 'event', 'ignore'].filter(
      (k) => entry[k as keyof MappingEntry] !== undefined,
    );
    if (targets.length !== 1) {
      return {
        param: at,
        message: `${at} must name exactly one of metric, set, event or ignore (it names ${targets.length === 0 ? 'none' : targets.join(' and ')}).`,
      };
    }
    if (entry.metric !== undefined && !METRIC_NAME.test(entry.metric)) {
      return {
        param: `${at}.metric`,
        message: `${at}.metric "${entry.metric}" is not a metric name: letters, digits and underscores in parts joined by dots, such as water.tank_pct.`,
      };
    }
    if (entry.scale === 0) {
      return { param: `${at}.scale`, message: `${at}.scale may not be 0: every value would read 0.` };
    }
    if (entry.when !== undefined && entry.event === undefined) {
      return { param: `${at}.when`, message: `${at}.when only applies to an event entry.` };
    }
  }
  return null;
}

/** The value at a dotted path of the decoded object, or undefined. */
export function valueAt(decoded: unknown, path: string): unknown {
  let node: unknown = decoded;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

/** A number from a decoded value: numbers as they are, numeric strings ("24.59", as some decoders send). */
function numberOf(value: unknown): number | null {
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)
        ? Number(value)
        : Number.NaN;
  // A string of 400 digits is a number too, but not a finite one.
  return Number.isFinite(n) ? n : null;
}

function isSet(value: unknown): boolean {
  if (typeof value === 'string') return value !== '' && value.toLowerCase() !== 'false' && value !== '0';
  return value !== undefined && value !== null && value !== false && value !== 0;
}

/** Every numeric leaf of the decoded object, by dotted path, in a stable order (at most `limit`). */
export function numericLeaves(decoded: unknown, limit: number): [string, number][] {
  const out: [string, number][] = [];
  const stack: [string, unknown][] = [['', decoded]];
  while (stack.length > 0 && out.length < limit) {
    const [path, value] = stack.shift() as [string, unknown];
    if (typeof value === 'number') {
      if (impossibleValue('', value, null) === null && path) out.push([path, value]);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        // A key with a blank or padded part ("", " ", ".", "a.") would make a metric no one could name
        // ("lorawan. ", "lorawan..").
        if (key.split('.').some((part) => part === '' || part !== part.trim())) continue;
        stack.push([path ? `${path}.${key}` : key, child]);
      }
    }
  }
  return out;
}

export interface LinkQuality {
  rssi: number | null;
  snr: number | null;
}

export interface MappedUplink {
  readings: { metric: string; value: number }[];
  battery?: number;
  lat?: number;
  lon?: number;
  events: { type: string; data: Record<string, unknown> }[];
}

/** Nine decimals at most (a scale's binary noise); a large value has none to drop (n * 1e9 would overflow). */
const round = (n: number) => (Math.abs(n) < 1e6 ? Math.round(n * 1e9) / 1e9 : n);

/** Applies a mapping to a decoded payload; link quality becomes `lorawan.rssi` / `lorawan.snr`. */
export function applyMapping(decoded: unknown, mapping: Mapping, link: LinkQuality): MappedUplink {
  const out: MappedUplink = { readings: [], events: [] };
  for (const [path, entry] of Object.entries(mapping)) {
    const raw = valueAt(decoded, path);
    if (entry.event !== undefined) {
      const fires = entry.when === undefined ? isSet(raw) : raw === entry.when;
      if (fires) out.events.push({ type: entry.event, data: { field: path, value: raw as never } });
      continue;
    }
    if (entry.ignore) continue;
    const n = numberOf(raw);
    if (n === null) continue;
    const value = round(n * (entry.scale ?? 1) + (entry.offset ?? 0));
    if (entry.metric !== undefined) {
      // A value no reading may have (beyond ±1e15, below absolute zero) is left out, not the whole uplink.
      if (impossibleValue(entry.metric, value, unitOf(entry.metric)) === null)
        out.readings.push({ metric: entry.metric, value });
      continue;
    }
    // A scale that overflowed sets no battery or position.
    if (!Number.isFinite(value)) continue;
    if (entry.set === 'battery') out.battery = Math.min(100, Math.max(0, value));
    else if (entry.set === 'lat' && value >= -90 && value <= 90) out.lat = value;
    else if (entry.set === 'lon' && value >= -180 && value <= 180) out.lon = value;
  }
  // A fix of exactly 0,0 is a tracker without one.
  if (out.lat === 0 && out.lon === 0) {
    delete out.lat;
    delete out.lon;
  }
  const named = new Set(Object.keys(mapping));
  const leaves = numericLeaves(decoded, MAX_UNMAPPED_FIELDS + named.size);
  let kept = 0;
  for (const [path, value] of leaves) {
    const metric = `${UNMAPPED_PREFIX}${path}`;
    if (named.has(path) || kept >= MAX_UNMAPPED_FIELDS || metric.length > 200) continue;
    out.readings.push({ metric, value });
    kept++;
  }
  if (link.rssi !== null) out.readings.push({ metric: RSSI_METRIC, value: link.rssi });
  if (link.snr !== null) out.readings.push({ metric: SNR_METRIC, value: link.snr });
  return out;
}

/**
 * The ingest body an uplink becomes, made at the network server's time: every reading and event, and the
 * battery and position, of that time (an uplink handed over late replaces no newer battery or position).
 */
export function toIngestBody(mapped: MappedUplink, at: string): IngestInput {
  const body: IngestInput = { at };
  if (mapped.readings.length > 0) body.readings = mapped.readings;
  if (mapped.events.length > 0) body.events = mapped.events;
  if (mapped.battery !== undefined) body.battery = mapped.battery;
  if (mapped.lat !== undefined && mapped.lon !== undefined) {
    body.lat = mapped.lat;
    body.lon = mapped.lon;
  }
  return body;
}
