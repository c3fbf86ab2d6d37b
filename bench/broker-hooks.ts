/**
 * How long the broker hooks take to answer (`npx node bench/broker-hooks.ts`; BENCH_ENGINES=sqlite,postgres):
 * one process with FARMSTEAD_MQTT_BROKER_AUTH=http on a real port, one keep-alive client asking in turn (as a
 * broker's pool does per connection), each answer timed from send to body: EMQX authentication with a device's
 * key (the key cache's path: looked up once, then remembered for 500 ms) and with a wrong key (a database read
 * every time), and EMQX authorization of a publish (no database). Prints p50 and p99 per question.
 */
import { performance } from 'node:perf_hooks';
import { SECRET, startHookApp, twoDevices } from '../test/broker-hooks.ts';
import { ENGINES } from '../test/engines.ts';

const ROUNDS = Number(process.env.BENCH_HOOK_ROUNDS ?? 2_000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

for (const engine of ENGINES) {
  const app = await startHookApp(engine, { logLevel: 'warn' });
  try {
    const { mine, theirs } = await twoDevices(app);
    const questions = {
      'authn, right key (cached)': ['/emqx/authn', { username: mine.id, password: mine.device_key }],
      'authn, wrong key (database)': ['/emqx/authn', { username: mine.id, password: theirs.device_key }],
      'authz, publish': [
        '/emqx/authz',
        { username: mine.id, action: 'publish', topic: `farmstead/devices/${mine.id}/report` },
      ],
    } as const;
    for (const [name, [path, body]] of Object.entries(questions)) {
      const times: number[] = [];
      const text = JSON.stringify(body);
      for (let i = 0; i < ROUNDS; i++) {
        const started = performance.now();
        const res = await fetch(`${app.base}/broker-hooks/${SECRET}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        await res.text();
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      console.log(
        `[${engine}] ${name}: p50 ${percentile(times, 50).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms (${ROUNDS} in turn)`,
      );
    }
  } finally {
    await app.close();
  }
}
