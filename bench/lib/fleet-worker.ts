/**
 * One worker thread of the fleet load generator (bench/fleet.ts): a slice of the simulated devices, each an
 * MQTT 5 client of its own (the `mqtt` package), reporting what the simulator's device models measure
 * (src/modules/simulator/model.ts) at the rate the main thread sets. A report carries a correlation id; its
 * answer on the device's result topic is sent after the report's transaction commits, so publish → answer
 * is publish → stored. Commands arriving on a device's commands topic are timed (wall clock, comparable
 * across threads) and answered.
 */
import { parentPort, workerData } from 'node:worker_threads';
import mqtt, { type MqttClient } from 'mqtt';
import { type Model, newModel, stepDevice } from '../../src/modules/simulator/model.ts';

export interface FleetDevice {
  id: string;
  key: string;
  type: string;
}

export interface WorkerInput {
  url: string;
  devices: FleetDevice[];
  /** Connections opened per second by this worker. */
  connectPerSecond: number;
  seed: number;
}

/** From the main thread. */
export type WorkerCommand =
  | { cmd: 'connect' }
  | { cmd: 'report-each' }
  | { cmd: 'rate'; perSecond: number }
  | { cmd: 'collect' }
  | { cmd: 'stop' };

export interface WorkerStats {
  published: number;
  answered: number;
  errors: number;
  /** Readings in the reports published, and in those answered without an error. */
  publishedReadings: number;
  readings: number;
  /** Publish → stored of each report answered since the last collect, ms. */
  latencies: number[];
  /** Command id → wall-clock time (ms) it reached its device. */
  commands: [string, number][];
  connectFailures: number;
  connectRetries: number;
  /** Connections lost after they were made. */
  disconnects: number;
}

interface Sim {
  device: FleetDevice;
  model: Model;
  client: MqttClient | null;
  lastAt: number;
  seq: number;
}

const input = workerData as WorkerInput;
/** Connections a worker waits on at once: more only queue in the server's accept backlog. */
const IN_FLIGHT = 200;
let state = input.seed >>> 0 || 1;
/** A seeded random source (xorshift32), so a run can be repeated. */
const random = () => {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 32;
};
const sims: Sim[] = input.devices.map((device) => ({
  device,
  model: newModel(device.type, random),
  client: null,
  lastAt: Date.now() - 60_000,
  seq: 0,
}));
const sent = new Map<string, { at: number; readings: number }>();
let stats: WorkerStats = fresh();
let timer: NodeJS.Timeout | null = null;
let next = 0;
let owed = 0;

function fresh(): WorkerStats {
  return {
    published: 0,
    answered: 0,
    errors: 0,
    publishedReadings: 0,
    readings: 0,
    latencies: [],
    commands: [],
    connectFailures: 0,
    connectRetries: 0,
    disconnects: 0,
  };
}

/** Connects a device (tries again after a failure, up to 5 times) and subscribes it. */
async function connectOne(sim: Sim): Promise<void> {
  const { id, key } = sim.device;
  let client: MqttClient | null = null;
  for (let attempt = 1; client === null; attempt++) {
    try {
      client = await mqtt.connectAsync(input.url, {
        username: id,
        password: key,
        clientId: `fleet-${id}`,
        protocolVersion: 5,
        // A lost connection stays lost: the bench counts it rather than piling reconnections on the server.
        reconnectPeriod: 0,
        connectTimeout: 30_000,
        keepalive: 300,
      });
    } catch (err) {
      if (attempt === 5) throw err;
      stats.connectRetries++;
      await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
    }
  }
  const connected = client;
  connected.on('message', (topic, payload, packet) => {
    const now = Date.now();
    if (topic.endsWith('/report/result')) {
      const tag = packet.properties?.correlationData?.toString() ?? '';
      const mine = sent.get(tag);
      if (!mine) return;
      sent.delete(tag);
      const body = JSON.parse(String(payload)) as { error?: unknown };
      if (body.error) stats.errors++;
      else {
        stats.answered++;
        stats.readings += mine.readings;
        stats.latencies.push(now - mine.at);
      }
      return;
    }
    if (topic.endsWith('/commands')) {
      const command = JSON.parse(String(payload)) as { id: string };
      stats.commands.push([command.id, now]);
      void connected
        .publishAsync(`${topic}/${command.id}/result`, '{"status":"done"}', { qos: 1 })
        .catch(() => {});
    }
  });
  connected.on('error', () => {});
  connected.on('close', () => {
    if (sim.client === connected) stats.disconnects++;
  });
  await connected.subscribeAsync(
    [`farmstead/devices/${id}/commands`, `farmstead/devices/${id}/report/result`],
    { qos: 1 },
  );
  sim.client = connected;
}

/** Opens the connections at `connectPerSecond`, at most IN_FLIGHT unanswered at once. */
async function connectAll(): Promise<void> {
  const gapMs = 1000 / input.connectPerSecond;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < sims.length; i++) {
    const wait = started + i * gapMs - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    while (inFlight.size >= IN_FLIGHT) await Promise.race(inFlight);
    const attempt: Promise<void> = connectOne(sims[i] as Sim)
      .catch(() => {
        stats.connectFailures++;
      })
      .finally(() => inFlight.delete(attempt));
    inFlight.add(attempt);
  }
  await Promise.all(inFlight);
}

function report(sim: Sim): void {
  const client = sim.client;
  if (!client) return;
  const at = Math.max(Date.now(), sim.lastAt + 1);
  const body = stepDevice(sim.model, at, (at - sim.lastAt) / 3_600_000, random);
  sim.lastAt = at;
  const tag = `${sim.device.id}:${sim.seq++}`;
  sent.set(tag, { at: Date.now(), readings: body.readings.length });
  stats.published++;
  stats.publishedReadings += body.readings.length;
  client
    .publishAsync(`farmstead/devices/${sim.device.id}/report`, JSON.stringify(body), {
      qos: 1,
      properties: { correlationData: Buffer.from(tag) },
    })
    .catch(() => {
      stats.errors++;
    });
}

/** Publishes `perSecond` reports a second from the devices in turn, in 20 ms steps. */
function setRate(perSecond: number): void {
  if (timer) clearInterval(timer);
  timer = null;
  owed = 0;
  if (perSecond <= 0) return;
  let last = performance.now();
  timer = setInterval(() => {
    const now = performance.now();
    owed += ((now - last) / 1000) * perSecond;
    last = now;
    while (owed >= 1) {
      owed--;
      report(sims[next++ % sims.length] as Sim);
    }
  }, 20);
}

/** Waits until every report sent has its answer, or 3 minutes (a backlog drains, or is counted unanswered). */
async function settle(): Promise<void> {
  const until = Date.now() + 180_000;
  while (sent.size > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

parentPort?.on('message', async (message: WorkerCommand) => {
  switch (message.cmd) {
    case 'connect':
      await connectAll();
      parentPort?.postMessage({ done: 'connect', connected: sims.filter((s) => s.client).length });
      return;
    case 'report-each':
      for (const sim of sims) report(sim);
      await settle();
      parentPort?.postMessage({ done: 'report-each' });
      return;
    case 'rate':
      setRate(message.perSecond);
      parentPort?.postMessage({ done: 'rate' });
      return;
    case 'collect': {
      await settle();
      const out = { ...stats, unanswered: sent.size };
      sent.clear();
      stats = fresh();
      parentPort?.postMessage({ done: 'collect', stats: out });
      return;
    }
    case 'stop':
      setRate(0);
      await Promise.all(sims.map((s) => s.client?.endAsync(true).catch(() => {})));
      parentPort?.postMessage({ done: 'stop' });
      return;
  }
});
