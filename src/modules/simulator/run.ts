/**
 * The device simulator: simulated devices of every type on one farm report over HTTP or MQTT, like real
 * devices, using only the public API (an API key to find or create them, their device keys to report) and
 * the public transports. Houses carry out their commands and answer them. Houses and animals' trackers
 * report where they are, starting at the farm's place (or inside its first drawn paddock): a house told to
 * move steps there at its rate, so the map moves it and its crossings into paddocks are recorded.
 */
import type { MqttClient } from 'mqtt';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { offsetM } from '../../lib/geo.ts';
import { mulberry32 } from '../../lib/random.ts';
import { pointInside, readPaddockGeometry } from '../paddocks/geometry.ts';
import {
  carryOut,
  MOBILE_TYPES,
  type Model,
  newModel,
  type Place,
  type Report,
  stepDevice,
} from './model.ts';

export interface SimulateOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:8080. */
  url: string;
  /** WebSocket or TCP MQTT address; default: ws on the service's /mqtt. */
  mqttUrl?: string;
  apiKey: string;
  farmId: string;
  devices: number;
  transport: 'http' | 'mqtt';
  /** Real milliseconds between reports. */
  everyMs: number;
  /**
   * Simulated time per real time while replaying the past: 60 runs an hour a minute. The simulated clock
   * never passes the real one: once it catches up with now, the run goes on in real time.
   */
  speed: number;
  /**
   * Where the simulated clock starts (epoch ms, in the past); default: `hours` (or, without it, 24 hours)
   * ago when `speed` is above 1, else now. Never before the devices' newest reading: a run after another
   * carries on from where that one left off, so its readings are not late (the alert engine would not
   * judge readings older than those it already judged).
   */
  startAt?: number;
  /** Stop after this many simulated hours; default: until the signal aborts. */
  hours?: number;
  /** The real clock (tests); Date.now by default. */
  clock?: () => number;
  seed?: number;
  signal?: AbortSignal;
  onStatus?: (status: SimulationStatus) => void;
}

export interface SimulationStatus {
  reports: number;
  commandsAnswered: number;
  errors: number;
  simulatedAt: string;
  lastError: string | null;
}

interface SimDevice {
  id: string;
  key: string;
  type: string;
  model: Model;
  mqtt: MqttClient | null;
  answered: Set<string>;
  /** Where the server last had it (a run after another carries on from there), if anywhere. */
  lastPlace: Place | null;
  /** The paddock whose point the model's `target` is (a house moving to a paddock). */
  targetFor: string | null;
}

type Json = Record<string, unknown>;

async function api(
  options: SimulateOptions,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${options.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => ({}))) as Json;
  if (!res.ok) {
    const error = json.error as { code?: string; message?: string } | undefined;
    throw new Error(`${method} ${path}: ${res.status} ${error?.code ?? ''} ${error?.message ?? ''}`.trim());
  }
  return json;
}

/** Finds the farm's simulated devices (named "Sim <type> <n>") and creates the missing ones; keys are rotated to be known. */
async function prepareDevices(options: SimulateOptions, random: () => number): Promise<SimDevice[]> {
  const existing = new Map<string, { id: string; place: Place | null }>();
  let before: string | undefined;
  for (;;) {
    const page = await api(
      options,
      'GET',
      `/v1/farms/${options.farmId}/devices?limit=100${before ? `&before=${encodeURIComponent(before)}` : ''}`,
      options.apiKey,
    );
    const data = page.data as Array<{
      id: string;
      name: string;
      created_at: string;
      lat: number | null;
      lon: number | null;
    }>;
    for (const d of data) {
      if (!d.name.startsWith('Sim ')) continue;
      existing.set(d.name, { id: d.id, place: d.lat !== null && d.lon !== null ? [d.lon, d.lat] : null });
    }
    if (!page.has_more || data.length === 0) break;
    before = data[data.length - 1]?.created_at;
  }
  const out: SimDevice[] = [];
  for (let i = 0; i < options.devices; i++) {
    const type = DEVICE_TYPES[i % DEVICE_TYPES.length] as string;
    const name = `Sim ${type} ${Math.floor(i / DEVICE_TYPES.length) + 1}`;
    const found = existing.get(name);
    // Keys are shown once: a device found again gets a new key, as a re-flashed device would.
    const created = found
      ? await api(options, 'POST', `/v1/devices/${found.id}/key`, options.apiKey)
      : await api(options, 'POST', `/v1/farms/${options.farmId}/devices`, options.apiKey, { type, name });
    out.push({
      id: String(created.id),
      key: String(created.device_key),
      type,
      model: newModel(type, random),
      mqtt: null,
      answered: new Set(),
      lastPlace: found?.place ?? null,
      targetFor: null,
    });
  }
  return out;
}

/** A point inside a paddock's outline, through the public API (null: none drawn, or it cannot be read). */
async function paddockPoint(options: SimulateOptions, paddockId: string): Promise<Place | null> {
  const paddock = await api(options, 'GET', `/v1/paddocks/${paddockId}`, options.apiKey);
  const { geometry } = readPaddockGeometry(paddock.geometry);
  return geometry ? (pointInside(geometry) as Place) : null;
}

/** Where the farm is: its own lat/lon, else a point inside its first drawn paddock, else nowhere. */
async function farmPlace(options: SimulateOptions): Promise<Place | null> {
  const farm = await api(options, 'GET', `/v1/farms/${options.farmId}`, options.apiKey);
  if (typeof farm.lat === 'number' && typeof farm.lon === 'number') return [farm.lon, farm.lat];
  const paddocks = await api(
    options,
    'GET',
    `/v1/farms/${options.farmId}/paddocks?limit=100`,
    options.apiKey,
  );
  for (const p of paddocks.data as Array<{ geometry: unknown }>) {
    const { geometry } = readPaddockGeometry(p.geometry);
    if (geometry) return pointInside(geometry) as Place;
  }
  return null;
}

/**
 * Puts the mobile devices somewhere: where the server last had them, else side by side from the farm's
 * place (25 m apart, eastwards), so a first run draws them on the farm.
 */
async function placeDevices(options: SimulateOptions, devices: readonly SimDevice[]): Promise<void> {
  const mobile = devices.filter((d) => MOBILE_TYPES.has(d.type));
  if (mobile.length === 0) return;
  const origin = mobile.some((d) => !d.lastPlace) ? await farmPlace(options) : null;
  mobile.forEach((d, i) => {
    const place = d.lastPlace ?? (origin ? offsetM(origin, 25 * i, 0) : null);
    d.model.place = place;
    d.model.home = place;
  });
}

/** A house moving to a paddock learns where that paddock is (once per paddock it is sent to). */
async function aimHouse(options: SimulateOptions, device: SimDevice): Promise<void> {
  const target = device.model.house?.move.target_paddock_id ?? null;
  if (target === device.targetFor) return;
  device.targetFor = target;
  device.model.target = target === null ? null : await paddockPoint(options, target);
}

type Command = { id: string; command: string; params: Json };

/**
 * Connects a device over MQTT and subscribes it to its commands and report results: commands are carried
 * out and answered, results counted (or their errors).
 */
async function connectMqtt(
  device: SimDevice,
  mqttUrl: string,
  on: {
    status: SimulationStatus;
    answer: (device: SimDevice, command: Command) => Promise<void>;
    fail: (err: unknown) => void;
  },
): Promise<void> {
  const { status, answer, fail } = on;
  // The MQTT client is loaded only when a simulation speaks MQTT (the server's own start never needs it).
  const { default: mqtt } = await import('mqtt');
  const client = await mqtt.connectAsync(mqttUrl, {
    username: device.id,
    password: device.key,
    protocolVersion: 5,
  });
  device.mqtt = client;
  client.on('message', (topic, payload) => {
    const json = JSON.parse(payload.toString('utf8')) as Json;
    if (topic.endsWith('/commands')) void answer(device, json as never).catch(fail);
    else if (topic.endsWith('/report/result')) {
      if (json.error) return fail(new Error(JSON.stringify(json.error)));
      status.reports++;
      // A report's answer carries the commands waiting for the device, as over HTTP.
      for (const command of (json.commands ?? []) as never[]) void answer(device, command).catch(fail);
    }
  });
  await client.subscribeAsync(
    [`farmstead/devices/${device.id}/commands`, `farmstead/devices/${device.id}/report/result`],
    { qos: 1 },
  );
}

/** The newest reading time of the simulated devices (null: none has reported), through the public API. */
async function newestReading(
  options: SimulateOptions,
  devices: readonly SimDevice[],
): Promise<number | null> {
  let newest: number | null = null;
  for (const device of devices) {
    const page = await api(options, 'GET', `/v1/devices/${device.id}/readings?limit=1`, options.apiKey);
    const at = (page.data as Array<{ at: string }>)[0]?.at;
    if (at !== undefined) newest = Math.max(newest ?? -Infinity, Date.parse(at));
  }
  return newest;
}

/**
 * Where the simulated clock starts: the asked start (default `hours`, or 24 h, ago when sped up; now at
 * real speed), moved on past the devices' newest reading, and never after now.
 */
async function simulationStart(
  options: SimulateOptions,
  devices: readonly SimDevice[],
  stepMs: number,
  now: number,
): Promise<number> {
  const history = options.speed > 1 ? (options.hours ?? 24) * 3_600_000 : 0;
  const asked = options.startAt ?? now - history;
  const newest = await newestReading(options, devices);
  return Math.min(now, Math.max(asked, newest === null ? asked : newest + stepMs));
}

export async function runSimulation(options: SimulateOptions): Promise<SimulationStatus> {
  // The same seed gives the same farm.
  const random = mulberry32(options.seed ?? 1);
  const status: SimulationStatus = {
    reports: 0,
    commandsAnswered: 0,
    errors: 0,
    simulatedAt: '',
    lastError: null,
  };
  const fail = (err: unknown) => {
    status.errors++;
    status.lastError = err instanceof Error ? err.message : String(err);
  };
  const devices = await prepareDevices(options, random);
  await placeDevices(options, devices);

  /** Carries a command out once (devices de-duplicate by command id) and answers it. */
  const answer = async (device: SimDevice, command: Command) => {
    if (device.answered.has(command.id)) return;
    device.answered.add(command.id);
    const body = { status: 'done', result: carryOut(device.model, command.command, command.params ?? {}) };
    if (device.mqtt) {
      await device.mqtt.publishAsync(
        `farmstead/devices/${device.id}/commands/${command.id}/result`,
        JSON.stringify(body),
        { qos: 1 },
      );
    } else {
      await api(options, 'POST', `/v1/device/commands/${command.id}`, device.key, body);
    }
    status.commandsAnswered++;
  };

  if (options.transport === 'mqtt') {
    const mqttUrl = options.mqttUrl ?? `${options.url.replace(/^http/, 'ws')}/mqtt`;
    for (const device of devices) await connectMqtt(device, mqttUrl, { status, answer, fail });
  }

  const report = async (device: SimDevice, body: Report) => {
    if (device.mqtt) {
      await device.mqtt.publishAsync(`farmstead/devices/${device.id}/report`, JSON.stringify(body), {
        qos: 1,
      });
      return;
    }
    const res = await api(options, 'POST', '/v1/ingest', device.key, body);
    status.reports++;
    for (const command of (res.commands ?? []) as Command[]) {
      await answer(device, command);
    }
  };

  const clock = options.clock ?? Date.now;
  const stepMs = options.everyMs * Math.max(1, options.speed);
  const start = await simulationStart(options, devices, stepMs, clock());
  const end = options.hours === undefined ? Number.POSITIVE_INFINITY : start + options.hours * 3_600_000;
  try {
    let previous = start - stepMs;
    for (let at = start; at <= end && !options.signal?.aborted; ) {
      const began = Date.now();
      const hours = (at - previous) / 3_600_000;
      status.simulatedAt = new Date(at).toISOString();
      await Promise.all(devices.filter((d) => d.model.house).map((d) => aimHouse(options, d).catch(fail)));
      await Promise.all(devices.map((d) => report(d, stepDevice(d.model, at, hours, random)).catch(fail)));
      options.onStatus?.(status);
      // A report every `everyMs` of real time, however long the reports took.
      const wait = Math.max(0, options.everyMs - (Date.now() - began));
      await new Promise((resolve) => setTimeout(resolve, wait));
      previous = at;
      // Replaying the past at speed until the simulated clock reaches the real one, then real time.
      at = Math.max(at + 1, Math.min(at + stepMs, clock()));
    }
    // Let answers to the last reports and commands in flight arrive.
    await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, options.everyMs * 5)));
  } finally {
    await Promise.all(devices.map((d) => d.mqtt?.endAsync().catch(() => {})));
  }
  return status;
}
