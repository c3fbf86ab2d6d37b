/**
 * `cli simulate --farm FARM [--devices N] [--transport http|mqtt] [--every 10s] [--speed 60] [--hours H]
 * [--from ISO] [--url URL] [--key rk_…]`: runs the device simulator against a running service until Ctrl-C
 * (or H simulated hours), with a status line on stderr. Sped up, it replays the past (from --from, else the
 * last H hours, else the last day; never before its devices' newest reading) up to now, then runs in real
 * time: it never reports a time in the future.
 */
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { runSimulation, type SimulationStatus } from '../modules/simulator/run.ts';

/** `10s`, `500ms`, `2m` or plain seconds, in milliseconds. */
function duration(text: string): number | null {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return null;
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

export class SimulateUsageError extends Error {}

export async function simulate(args: string[], config: Readonly<Config>): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      farm: { type: 'string' },
      devices: { type: 'string', default: '9' },
      transport: { type: 'string', default: 'http' },
      every: { type: 'string', default: '10s' },
      speed: { type: 'string', default: '60' },
      hours: { type: 'string' },
      from: { type: 'string' },
      url: { type: 'string', default: `http://${config.host}:${config.port}` },
      key: { type: 'string' },
      seed: { type: 'string', default: '1' },
    },
    strict: true,
  });
  const apiKey = values.key ?? config.apiKey;
  const everyMs = duration(values.every);
  const devices = Number(values.devices);
  const speed = Number(values.speed);
  const hours = values.hours === undefined ? undefined : Number(values.hours);
  if (!values.farm) throw new SimulateUsageError('simulate needs --farm FARM_ID');
  if (!apiKey) throw new SimulateUsageError('simulate needs an API key: --key rk_… or FARMSTEAD_API_KEY');
  if (values.transport !== 'http' && values.transport !== 'mqtt')
    throw new SimulateUsageError('--transport must be http or mqtt');
  if (everyMs === null || everyMs < 10)
    throw new SimulateUsageError('--every must be a duration like 10s or 500ms');
  if (!Number.isInteger(devices) || devices < 1 || devices > 1000)
    throw new SimulateUsageError('--devices must be a whole number from 1 to 1000');
  if (!(speed > 0)) throw new SimulateUsageError('--speed must be a positive number');
  if (hours !== undefined && !(hours > 0)) throw new SimulateUsageError('--hours must be a positive number');
  const from = values.from === undefined ? undefined : Date.parse(values.from);
  if (from !== undefined && !(Number.isFinite(from) && from <= Date.now()))
    throw new SimulateUsageError('--from must be a date-time in the past, like 2026-11-01T18:00:00Z');

  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  process.once('SIGTERM', () => abort.abort());
  const line = (s: SimulationStatus) =>
    `simulated ${s.simulatedAt}  reports ${s.reports}  commands answered ${s.commandsAnswered}  errors ${s.errors}${s.lastError ? ` (last: ${s.lastError.slice(0, 80)})` : ''}`;
  process.stderr.write(
    `Simulating ${devices} devices on ${values.farm} over ${values.transport}, a report every ${values.every}, replaying the past at ${speed}× up to now, then in real time (Ctrl-C stops)\n`,
  );
  const final = await runSimulation({
    url: values.url,
    apiKey,
    farmId: values.farm,
    devices,
    transport: values.transport,
    everyMs,
    speed,
    ...(hours !== undefined ? { hours } : {}),
    ...(from !== undefined ? { startAt: from } : {}),
    seed: Number(values.seed) || 1,
    signal: abort.signal,
    onStatus: (s) => process.stderr.write(process.stderr.isTTY ? `\r${line(s)}\u001b[K` : `${line(s)}\n`),
  });
  process.stderr.write(`\nstopped: ${line(final)}\n`);
}
