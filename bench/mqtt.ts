/**
 * MQTT figures for `npm run bench`: ingest over MQTT (each of 50 connected devices publishes a QoS 1
 * report, waits for its answer on the result topic, publishes the next: the answer is sent after the
 * report's transaction commits, so publish → answer is publish → stored) and command push latency
 * (POST /v1/devices/{id}/commands → the command arriving on the device's topic).
 */
import mqtt, { type MqttClient } from 'mqtt';
import { reportBody } from './lib/reports.ts';

export interface MqttLoadResult {
  reports: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function connect(port: number, device: { id: string; key: string }): Promise<MqttClient> {
  return mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, {
    username: device.id,
    password: device.key,
    protocolVersion: 5,
    reconnectPeriod: 0,
  });
}

/** Closed-loop MQTT ingest from every device at once for `durationMs` (after a short warm-up). */
export async function mqttIngest(
  mqttPort: number,
  devices: ReadonlyArray<{ id: string; key: string }>,
  options: { origin: number; size: number; durationMs: number; warmupMs: number },
): Promise<MqttLoadResult> {
  const clients = await Promise.all(devices.map((d) => connect(mqttPort, d)));
  const latencies: number[] = [];
  let errors = 0;
  let measuring = false;
  let stop = false;
  try {
    const loops = clients.map(async (client, i) => {
      const device = devices[i] as { id: string };
      const resultTopic = `farmstead/devices/${device.id}/report/result`;
      await client.subscribeAsync(resultTopic, { qos: 1 });
      let pending: ((ok: boolean) => void) | null = null;
      client.on('message', (_topic, payload) => {
        const ok = !(JSON.parse(String(payload)) as { error?: unknown }).error;
        pending?.(ok);
      });
      for (let seq = 0; !stop; seq++) {
        const sent = performance.now();
        const answered = new Promise<boolean>((resolve) => {
          pending = resolve;
        });
        await client.publishAsync(
          `farmstead/devices/${device.id}/report`,
          reportBody(options.origin + i * 86_400_000, seq, options.size),
          {
            qos: 1,
          },
        );
        const ok = await answered;
        if (!measuring) continue;
        if (ok) latencies.push(performance.now() - sent);
        else errors++;
      }
    });
    await new Promise((resolve) => setTimeout(resolve, options.warmupMs));
    measuring = true;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    measuring = false;
    const seconds = (performance.now() - started) / 1000;
    stop = true;
    await Promise.all(loops);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      reports: latencies.length,
      perSecond: latencies.length / seconds,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
      errors,
    };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true)));
  }
}

/** Queues `count` commands one after another over REST and times each until the device receives it. */
export async function commandPush(
  httpPort: number,
  mqttPort: number,
  liveKey: string,
  device: { id: string; key: string },
  count: number,
): Promise<{ p50Ms: number; p99Ms: number }> {
  const client = await connect(mqttPort, device);
  const waiting = new Map<string, (at: number) => void>();
  const early = new Map<string, number>();
  client.on('message', (_topic, payload) => {
    const { id } = JSON.parse(String(payload)) as { id: string };
    const at = performance.now();
    const resolve = waiting.get(id);
    if (resolve) resolve(at);
    else early.set(id, at);
  });
  await client.subscribeAsync(`farmstead/devices/${device.id}/commands`, { qos: 1 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const sent = performance.now();
      const res = await fetch(`http://127.0.0.1:${httpPort}/v1/devices/${device.id}/commands`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'lights.set', params: { mode: i % 2 ? 'on' : 'off' } }),
      });
      const { id } = (await res.json()) as { id: string };
      const arrived = early.get(id) ?? (await new Promise<number>((resolve) => waiting.set(id, resolve)));
      latencies.push(arrived - sent);
      // Answer it, so the next command is not one of many open ones.
      await client.publishAsync(`farmstead/devices/${device.id}/commands/${id}/result`, '{"status":"done"}', {
        qos: 1,
      });
    }
  } finally {
    await client.endAsync(true);
  }
  const sorted = latencies.sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}
