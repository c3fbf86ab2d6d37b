/**
 * The houses view of a farm at its worst, on a real server started as `npm start` starts it (its Node flags:
 * the 256 MB heap cap), on each engine (issue 34, "A crash by CSV", the review of every endpoint that builds
 * a whole answer): 500 houses whose states are each 64 KiB of the most objects per byte (`[[],[],…]`), 50 of
 * them with ten commands answered with 60 KiB results of the same. Before the view paged, one request ran the
 * server out of heap; now every page is answered, every house comes exactly once, the server stays up, and
 * the heap's peak (from `--trace-gc`) is reported (docs/data.md, "Memory").
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES, serverDatabase } from '../../../test/engines.ts';
import { createAccountDirect, npmStartNodeArgs, type Server, startServer } from '../../../test/processes.ts';
import { loadConfig } from '../../config.ts';
import { openDatabase } from '../../db/database.ts';

const HOUSES = 500;
const WITH_COMMANDS = 50;
/** 64 KiB (just under the device state cap) of empty arrays: about 440 KB of objects once parsed. */
const STATE = `{"x":[${'[],'.repeat(21_835)}[]]}`;
const RESULT = `{"x":[${'[],'.repeat(20_000)}[]]}`;

/** The largest heap before a collection in `--trace-gc` output (`… 95.1 (120.3) -> …` MB). */
function peakHeapMb(output: string): number {
  let peak = 0;
  for (const m of output.matchAll(/(\d+(?:\.\d+)?) \((\d+(?:\.\d+)?)\) -> /g))
    peak = Math.max(peak, Number(m[1]));
  return peak;
}

for (const engine of ENGINES) {
  describe(`[${engine}] the houses view of 500 houses with maximal states, under the production heap cap`, () => {
    let server: Server;
    let dropDatabase: (() => Promise<void>) | null = null;
    let key: string;
    let farmId: string;
    const houseIds: string[] = [];

    before(async () => {
      const made = await serverDatabase(engine);
      dropDatabase = made.drop;
      const database = made.env;
      key = (await createAccountDirect(database, 'Many houses')).live_key;
      server = await startServer(
        { ...database, FARMSTEAD_MQTT_PORT: 'off', LOG_LEVEL: 'warn' },
        { nodeArgs: [...npmStartNodeArgs(), '--trace-gc'] },
      );
      const post = async (url: string, body: unknown) => {
        const res = await fetch(`${server.url}${url}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const reply = (await res.json()) as { id: string };
        assert.equal(res.status, 201, JSON.stringify(reply));
        return reply;
      };
      farmId = (await post('/v1/farms', { name: 'Many houses' })).id;
      const first = await post(`/v1/farms/${farmId}/devices`, { type: 'house', name: 'House 1' });
      // The other houses and their commands are written straight into the database: what 500 real houses
      // reporting their largest states for months would have left there.
      const opened = await openDatabase(loadConfig(database));
      try {
        const db = opened.db;
        const row = await db
          .selectFrom('devices')
          .selectAll()
          .where('id', '=', first.id)
          .executeTakeFirstOrThrow();
        await db.updateTable('devices').set({ state: STATE }).where('id', '=', first.id).execute();
        houseIds.push(first.id);
        for (let i = 2; i <= HOUSES; i += 50) {
          const rows = [];
          for (let j = i; j < Math.min(HOUSES + 1, i + 50); j++) {
            const id = `dev_heap${String(j).padStart(6, '0')}`;
            houseIds.push(id);
            rows.push({
              ...row,
              id,
              name: `House ${j}`,
              state: STATE,
              key_hash: `${row.key_hash}${j}`,
              key_prefix: `${row.key_prefix}${j}`,
              created_at: row.created_at + j,
            });
          }
          await db.insertInto('devices').values(rows).execute();
        }
        for (const [n, deviceId] of houseIds.slice(0, WITH_COMMANDS).entries()) {
          const commands = [];
          for (let c = 0; c < 10; c++) {
            commands.push({
              id: `cmd_heap${String(n * 10 + c).padStart(6, '0')}`,
              farm_id: farmId,
              device_id: deviceId,
              command: 'move.stop',
              params: '{}',
              status: 'done' as const,
              result: RESULT,
              created_at: row.created_at + c,
              delivered_at: row.created_at + c,
              done_at: row.created_at + c,
              expires_at: row.created_at + 86_400_000,
              delivery_attempts: 1,
              redeliver_after_s: 60,
              redeliver_at: null,
            });
          }
          await db.insertInto('commands').values(commands).execute();
        }
      } finally {
        await opened.close();
      }
    });

    after(async () => {
      await server?.stop();
      await dropDatabase?.();
    });

    test('every page is answered, every house exactly once, and the server stays up', async (t) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      let largest = 0;
      const started = Date.now();
      do {
        const query: string = cursor ? `&before=${encodeURIComponent(cursor)}` : '';
        const res = await fetch(`${server.url}/v1/farms/${farmId}/houses?limit=500${query}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const text = await res.text();
        assert.equal(res.status, 200, text.slice(0, 300));
        largest = Math.max(largest, text.length);
        const page = JSON.parse(text) as {
          data: { id: string; recent_commands: unknown[] }[];
          has_more: boolean;
          next_before: string | null;
        };
        assert.ok(page.data.length > 0);
        seen.push(...page.data.map((h) => h.id));
        cursor = page.has_more ? page.next_before : null;
        pages++;
      } while (cursor);
      assert.equal(seen.length, HOUSES);
      assert.equal(new Set(seen).size, HOUSES, 'no house twice');
      assert.deepEqual([...seen].sort(), [...houseIds].sort(), 'every house');
      assert.ok(pages > 1, 'a farm this large pages');
      assert.ok(largest < 3 * 1024 * 1024, `the largest page is ${largest} bytes`);
      const health = await fetch(`${server.url}/v1/farms/${farmId}/houses?limit=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      // Read to the end: a body left unread (a house with its commands, about 700 KB) can stay half-written on
      // the server's socket, and stopping the server then waits for the connection's keep-alive timeout (72 s).
      const healthy = (await health.json()) as { data: unknown[] };
      assert.equal(health.status, 200, 'the server is still up');
      assert.equal(healthy.data.length, 1);
      const peak = peakHeapMb(server.output.text);
      assert.ok(peak > 0 && peak < 256, `peak heap ${peak} MB`);
      t.diagnostic(
        `${engine}: ${pages} pages in ${Date.now() - started} ms, largest ${(largest / 1e6).toFixed(1)} MB, peak heap ${peak} MB`,
      );
    });
  });
}
