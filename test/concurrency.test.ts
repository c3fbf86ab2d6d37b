/**
 * Every read-modify-write and every once-only rule, raced by 50 concurrent writers on each engine (on
 * SQLite the writers share one process, as the server's requests do). A lost update, a second active alert,
 * a second answer or a deadlock fails here, so this class of bug is found by the suite itself.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { attemptDelivery } from '../src/modules/webhooks/delivery.ts';
import { dispatchOutbox } from '../src/modules/webhooks/dispatch.ts';
import { emitEvent } from '../src/modules/webhooks/emit.ts';
import { claimDueDeliveries } from '../src/modules/webhooks/queue-repository.ts';
import { forEachEngine, type Receiver, startReceiver, type TestApp } from './harness.ts';
import { deliverDueNow } from './webhook-delivery.ts';

const WRITERS = 50;
const each = <T>(fn: (i: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: WRITERS }, (_, i) => fn(i)));

async function liveFarm(t: TestApp): Promise<{ key: string; farmId: string }> {
  const acct = await t.account();
  const farm = await t.request('POST', '/v1/farms', { key: acct.live_key, body: { name: 'Race farm' } });
  assert.equal(farm.status, 201, JSON.stringify(farm.body));
  return { key: acct.live_key, farmId: farm.body.id };
}

async function created(t: TestApp, key: string, url: string, body: unknown): Promise<any> {
  const res = await t.request('POST', url, { key, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

function expectAllOk(replies: { status: number; body: unknown }[], what: string): void {
  const bad = replies.filter((r) => r.status !== 200);
  assert.equal(bad.length, 0, `${what}: ${bad.length} failed, e.g. ${JSON.stringify(bad[0]?.body)}`);
}

forEachEngine(
  'concurrent writers',
  (t) => {
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((r) => r.close())));

    test('50 concurrent PATCH merges into a farm’s settings keep every member', async () => {
      const { key, farmId } = await liveFarm(t());
      const replies = await each((i) =>
        t().request('PATCH', `/v1/farms/${farmId}`, { key, body: { settings: { [`k${i}`]: i } } }),
      );
      expectAllOk(replies, 'PATCH settings');
      const farm = await t().request('GET', `/v1/farms/${farmId}`, { key });
      assert.equal(Object.keys(farm.body.settings).length, WRITERS, JSON.stringify(farm.body.settings));
      for (let i = 0; i < WRITERS; i++) assert.equal(farm.body.settings[`k${i}`], i);
    });

    test('50 concurrent PATCH merges into an animal’s fields keep every member, with other PATCHes beside them', async () => {
      const { key, farmId } = await liveFarm(t());
      const animal = await created(t(), key, `/v1/farms/${farmId}/animals`, { species: 'cattle' });
      // Whole-row writers (name, notes) race the field merges: neither may undo the other.
      const replies = await each((i) =>
        t().request('PATCH', `/v1/animals/${animal.id}`, {
          key,
          body: i % 5 === 0 ? { fields: { [`f${i}`]: i }, notes: `n${i}` } : { fields: { [`f${i}`]: i } },
        }),
      );
      expectAllOk(replies, 'PATCH fields');
      const read = await t().request('GET', `/v1/animals/${animal.id}`, { key });
      assert.equal(Object.keys(read.body.fields).length, WRITERS, JSON.stringify(read.body.fields));
      assert.match(read.body.notes, /^n\d+$/);
    });

    test('50 concurrent PATCHes of a group, a paddock, a task and an event each keep the last write of every field', async () => {
      const { key, farmId } = await liveFarm(t());
      const group = await created(t(), key, `/v1/farms/${farmId}/groups`, { name: 'G', species: 'cattle' });
      const paddock = await created(t(), key, `/v1/farms/${farmId}/paddocks`, { name: 'P' });
      const task = await created(t(), key, `/v1/farms/${farmId}/tasks`, { title: 'T' });
      const event = await created(t(), key, `/v1/farms/${farmId}/events`, { type: 'note', data: {} });
      // Half the writers change one field, half another: a stale whole-row write would undo one half.
      const replies = await each((i) => {
        const half = i % 2 === 0;
        const which = i % 8 < 2 ? 'group' : i % 8 < 4 ? 'paddock' : i % 8 < 6 ? 'task' : 'event';
        if (which === 'group')
          return t().request('PATCH', `/v1/groups/${group.id}`, {
            key,
            body: half ? { name: 'G2' } : { head_count: 12 },
          });
        if (which === 'paddock')
          return t().request('PATCH', `/v1/paddocks/${paddock.id}`, {
            key,
            body: half ? { name: 'P2' } : { acres: 7 },
          });
        if (which === 'task')
          return t().request('PATCH', `/v1/tasks/${task.id}`, {
            key,
            body: half ? { title: 'T2' } : { notes: 'noted' },
          });
        return t().request('PATCH', `/v1/events/${event.id}`, {
          key,
          body: half ? { type: 'observation' } : { data: { seen: true } },
        });
      });
      expectAllOk(replies, 'PATCH records');
      const g = (await t().request('GET', `/v1/groups/${group.id}`, { key })).body;
      assert.deepEqual([g.name, g.head_count], ['G2', 12]);
      const p = (await t().request('GET', `/v1/paddocks/${paddock.id}`, { key })).body;
      assert.deepEqual([p.name, p.acres], ['P2', 7]);
      const k = (await t().request('GET', `/v1/tasks/${task.id}`, { key })).body;
      assert.deepEqual([k.title, k.notes], ['T2', 'noted']);
      const e = (await t().request('GET', `/v1/events/${event.id}`, { key })).body;
      assert.deepEqual([e.type, e.data], ['observation', { seen: true }]);
    });

    test('50 concurrent state reports merge every key, while PATCHes (one making it a house) change the device', async () => {
      const { key, farmId } = await liveFarm(t());
      const device = await created(t(), key, `/v1/farms/${farmId}/devices`, { type: 'other', name: 'D' });
      const replies = await each((i) =>
        i % 10 === 5
          ? t().request('PATCH', `/v1/devices/${device.id}`, {
              key,
              body: i === 25 ? { type: 'house' } : { name: `D${i}` },
            })
          : t().request('POST', '/v1/ingest', { key: device.device_key, body: { state: { [`s${i}`]: i } } }),
      );
      expectAllOk(replies, 'ingest and PATCH');
      const read = (await t().request('GET', `/v1/devices/${device.id}`, { key })).body;
      assert.equal(read.type, 'house');
      for (let i = 0; i < WRITERS; i++) {
        if (i % 10 !== 5) assert.equal(read.state[`s${i}`], i, `state key s${i} kept`);
      }
      assert.ok(read.state.doors, 'the house defaults were merged in as well');
    });

    test('50 concurrent simulated commands on the sample farm’s house all land in its state', async () => {
      const acct = await t().account();
      const key = acct.test_key;
      const devices = await t().request('GET', `/v1/farms/${acct.sample_farm_id}/devices?limit=100`, { key });
      const house = devices.body.data.find((d: any) => d.type === 'house');
      assert.ok(house);
      // Each command changes its own part of the state; every one must survive the others.
      const commands: [string, Record<string, unknown>][] = [
        ['doors.schedule', { open: '05:55', close: '21:05' }],
        ['feed.schedule', { times: ['06:10', '17:20'] }],
        ['feed.dispense', { kg: 3.5 }],
        ['spines.set_height', { mm: 321 }],
        ['climate.set_target', { temp_c: 17.5 }],
        ['fans.set', { tunnel: 'on' }],
        ['lights.set', { mode: 'off' }],
        ['awnings.set', { position: 'closed' }],
      ];
      const replies = await each((i) => {
        const [command, params] = commands[i % commands.length] ?? ['feed.dispense', { kg: 3.5 }];
        return t().request('POST', `/v1/devices/${house.id}/commands`, { key, body: { command, params } });
      });
      const bad = replies.filter((r) => r.status !== 201);
      assert.equal(bad.length, 0, JSON.stringify(bad[0]?.body));
      const state = (await t().request('GET', `/v1/devices/${house.id}`, { key })).body.state;
      assert.deepEqual(state.door_schedule, { open: '05:55', close: '21:05' });
      assert.deepEqual(state.feed.schedule, ['06:10', '17:20']);
      assert.equal(state.feed.last_dispensed_kg, 3.5);
      assert.equal(state.spines.height_mm, 321);
      assert.equal(state.climate.target_temp_c, 17.5);
      assert.equal(state.fans.tunnel, 'on');
      assert.equal(state.lights, 'off');
      assert.equal(state.awnings, 'closed');
    });

    test('50 devices on one animal reporting a fever at once open exactly one active alert', async () => {
      const { key, farmId } = await liveFarm(t());
      const animal = await created(t(), key, `/v1/farms/${farmId}/animals`, {
        species: 'cattle',
        name: 'Daisy',
      });
      const boluses: any[] = [];
      for (let i = 0; i < WRITERS; i++) {
        boluses.push(
          await created(t(), key, `/v1/farms/${farmId}/devices`, {
            type: 'bolus',
            name: `B${i}`,
            animal_id: animal.id,
          }),
        );
      }
      const replies = await Promise.all(
        boluses.map((b) =>
          t().request('POST', '/v1/ingest', {
            key: b.device_key,
            body: { readings: [{ metric: 'body.temp_c', value: 41 }] },
          }),
        ),
      );
      expectAllOk(replies, 'ingest');
      const alerts = await t().request('GET', `/v1/farms/${farmId}/alerts?limit=100`, { key });
      const active = alerts.body.data.filter(
        (a: any) => a.subject_id === animal.id && a.status !== 'resolved' && a.rule === 'animal.fever',
      );
      assert.equal(active.length, 1, JSON.stringify(alerts.body.data.map((a: any) => [a.rule, a.status])));
    });

    test('50 concurrent answers to one command: exactly one is taken, the rest are 409, one event', async () => {
      const { key, farmId } = await liveFarm(t());
      const device = await created(t(), key, `/v1/farms/${farmId}/devices`, { type: 'water', name: 'Tank' });
      const queued = await t().request('POST', `/v1/devices/${device.id}/commands`, {
        key,
        body: { command: 'valve.set', params: { position: 'open' } },
      });
      assert.equal(queued.status, 201, JSON.stringify(queued.body));
      const polled = await t().request('GET', '/v1/device/commands', { key: device.device_key });
      assert.equal(polled.body.data?.[0]?.id ?? polled.body[0]?.id, queued.body.id);
      const replies = await each((i) =>
        t().request('POST', `/v1/device/commands/${queued.body.id}`, {
          key: device.device_key,
          body: { status: i % 2 ? 'done' : 'failed', result: { by: i } },
        }),
      );
      assert.equal(replies.filter((r) => r.status === 200).length, 1);
      assert.equal(replies.filter((r) => r.status === 409).length, WRITERS - 1);
      const events = await t()
        .database.db.selectFrom('outbox')
        .select('type')
        .where('farm_id', '=', farmId)
        .where('type', 'in', ['command.done', 'command.failed'])
        .execute();
      assert.equal(events.length, 1);
    });

    test('50 deliveries answered 410 at once: every attempt is recorded, the webhook is disabled, nothing more is sent', async () => {
      const rcv = await startReceiver(() => 410);
      receivers.push(rcv);
      const { key, farmId } = await liveFarm(t());
      const hook = await created(t(), key, `/v1/farms/${farmId}/webhooks`, { url: rcv.url });
      const { db } = t().database;
      for (let i = 0; i < WRITERS; i++) await emitEvent(db, farmId, 'event.created', { id: `evt_${i}` });
      await dispatchOutbox(db);
      const claimed = await claimDueDeliveries(db, { limit: 1_000, leaseMs: 60_000 });
      assert.equal(claimed.length, WRITERS);
      const settings = { ...t().config, webhookRetryScheduleMs: [1_000] };
      // Every send is answered 410 before any is recorded, so the 50 recordings race one another.
      const outcomes = await Promise.allSettled(
        claimed.map((c) => attemptDelivery(db, c, settings, 'scheduled')),
      );
      const rejected = outcomes.filter((o) => o.status === 'rejected');
      assert.equal(rejected.length, 0, String((rejected[0] as PromiseRejectedResult | undefined)?.reason));
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempt_count'])
        .where('webhook_id', '=', hook.id)
        .execute();
      assert.equal(rows.length, WRITERS);
      assert.ok(
        rows.every((r) => r.status === 'failed' && r.attempt_count === 1),
        JSON.stringify(rows),
      );
      const attempts = await db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_deliveries as d', 'd.id', 'webhook_attempts.delivery_id')
        .select('webhook_attempts.status_code')
        .where('d.webhook_id', '=', hook.id)
        .execute();
      assert.equal(attempts.length, WRITERS);
      assert.ok(attempts.every((a) => a.status_code === 410));
      const after410 = await t().request('GET', `/v1/webhooks/${hook.id}`, { key });
      assert.equal(after410.body.status, 'disabled');
      const sent = rcv.requests.length;
      await emitEvent(db, farmId, 'event.created', { id: 'evt_after' });
      await deliverDueNow(t().database, settings);
      assert.equal(rcv.requests.length, sent, 'a disabled webhook is posted nothing more');
    });
  },
  { webhookAllowPrivate: true },
);
