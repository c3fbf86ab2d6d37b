import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import { connect, ERAS, ok, refused } from '../../../test/mcp.ts';
import type { Device, FarmEvent, Group, List, Paddock, Task } from '../../../test/replies.ts';
import { StatementCounter } from '../../../test/statement-counter.ts';
import { ingestReport } from '../ingest/service.ts';
import type { GrazingStay } from './schemas.ts';

const DAY = 86_400_000;

/** A square outline from (lon, lat) of `size` degrees. */
function square(lon: number, lat: number, size = 0.01) {
  return {
    type: 'Polygon',
    coordinates: [
      [
        [lon, lat],
        [lon + size, lat],
        [lon + size, lat + size],
        [lon, lat + size],
        [lon, lat],
      ],
    ],
  };
}

/** West and East: two paddocks side by side, sharing the line lon -92.32. */
const WEST = square(-92.33, 38.95);
const EAST = square(-92.32, 38.95);
const IN_WEST = { lat: 38.955, lon: -92.325 };
const IN_EAST = { lat: 38.955, lon: -92.315 };
const OUTSIDE = { lat: 38.9, lon: -92.2 };

async function farmWithPaddocks(t: TestApp) {
  const acct = await t.sharedAccount();
  const key = acct.live_key;
  const farm = await make.farm(t, key);
  const west = await make.paddock(t, key, farm.id, { name: 'West', geometry: WEST, rest_days_target: 30 });
  const east = await make.paddock(t, key, farm.id, { name: 'East', geometry: EAST, rest_days_target: 30 });
  return { key, farm, west, east };
}

function paddock(t: TestApp, key: string, id: string): Promise<Paddock> {
  return make.fetched<Paddock>(t, key, `/v1/paddocks/${id}`);
}

function history(t: TestApp, key: string, id: string, query = ''): Promise<List<GrazingStay>> {
  return make.fetched<List<GrazingStay>>(t, key, `/v1/paddocks/${id}/grazing${query}`);
}

function move(t: TestApp, key: string, farmId: string, subjectId: string, to: string | null, at?: number) {
  return t.request<FarmEvent>('POST', `/v1/farms/${farmId}/events`, {
    key,
    body: {
      type: 'move',
      subject_id: subjectId,
      data: { to_paddock_id: to },
      ...(at === undefined ? {} : { at: new Date(at).toISOString() }),
    },
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

forEachEngine('grazing', (t) => {
  test('a move event moves the group: the paddock left rests from the move, the one entered is occupied', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const before = await paddock(t(), key, west.id);
    assert.deepEqual(before.occupied_by, {
      groups: [{ id: herd.id, name: 'Herd' }],
      animals: [],
      houses: [],
    });
    assert.equal(before.rest_days, null, 'occupied: not resting');

    const at = Date.now() - 3 * DAY;
    const res = await move(t(), key, farm.id, herd.id, east.id, at);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.subject_type, 'group');

    assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, east.id);
    const left = await paddock(t(), key, west.id);
    assert.deepEqual(left.occupied_by, { groups: [], animals: [], houses: [] });
    assert.equal(left.last_grazed_at, iso(at));
    assert.equal(left.rest_days, 3);
    const entered = await paddock(t(), key, east.id);
    assert.deepEqual(entered.occupied_by.groups, [{ id: herd.id, name: 'Herd' }]);
    assert.equal(entered.rest_days, null);
    assert.equal(entered.last_grazed_at, null);

    const westStays = await history(t(), key, west.id);
    assert.deepEqual(
      westStays.data.map((s) => [s.subject_type, s.subject_id, s.name, s.until]),
      [['group', herd.id, 'Herd', iso(at)]],
    );
    assert.deepEqual(
      (await history(t(), key, east.id)).data.map((s) => [s.subject_id, s.from, s.until]),
      [[herd.id, iso(at), null]],
    );
    // The list shows the same figures as the record.
    const list = await make.fetched<List<Paddock>>(t(), key, `/v1/farms/${farm.id}/paddocks`);
    assert.deepEqual(
      list.data.find((p) => p.id === west.id),
      left,
    );
  });

  test('a move logged late takes its place in `at` order, not in the order it arrived', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const north = await make.paddock(t(), key, farm.id, { name: 'North' });
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const now = Date.now();
    const recent = now - 2 * DAY;
    const earlier = now - 10 * DAY;
    assert.equal((await move(t(), key, farm.id, herd.id, east.id, recent)).status, 201);
    // Logged afterwards, dated before: the herd went West → North ten days ago, then North → East.
    assert.equal((await move(t(), key, farm.id, herd.id, north.id, earlier)).status, 201);

    assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, east.id);
    const w = await paddock(t(), key, west.id);
    assert.equal(w.last_grazed_at, iso(earlier), 'West was left ten days ago, not two');
    assert.equal(w.rest_days, 10);
    const n = await paddock(t(), key, north.id);
    assert.equal(n.last_grazed_at, iso(recent));
    assert.equal(n.rest_days, 2);
    assert.deepEqual(n.occupied_by.groups, []);
    assert.deepEqual(
      (await history(t(), key, north.id)).data.map((s) => [s.from, s.until]),
      [[iso(earlier), iso(recent)]],
    );

    // Editing a move rebuilds the record; deleting one takes it out.
    const events = await make.fetched<List<FarmEvent>>(
      t(),
      key,
      `/v1/farms/${farm.id}/events?subject_id=${herd.id}&type=move`,
    );
    const toNorth = events.data.find((e) => e.data.to_paddock_id === north.id)!;
    // Its `at` corrected to a day before the move East: the record follows the edit.
    const corrected = recent - DAY;
    const patched = await t().request('PATCH', `/v1/events/${toNorth.id}`, {
      key,
      body: { at: iso(corrected) },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await paddock(t(), key, west.id)).last_grazed_at, iso(corrected));
    assert.deepEqual(
      (await history(t(), key, north.id)).data.map((s) => [s.from, s.until]),
      [[iso(corrected), iso(recent)]],
    );
    assert.equal((await t().request('DELETE', `/v1/events/${toNorth.id}`, { key })).status, 200);
    assert.deepEqual((await history(t(), key, north.id)).data, []);
    const w2 = await paddock(t(), key, west.id);
    assert.equal(w2.last_grazed_at, iso(recent), 'West held the herd until the move East');
  });

  test('moves of one group logged at once, in any order of `at`, leave one record that follows `at`', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const base = Date.now() - 30 * DAY;
    // Twelve moves, alternating East and West by day, sent together in a shuffled order.
    const days = [7, 2, 11, 0, 5, 9, 3, 10, 1, 6, 8, 4];
    const replies = await Promise.all(
      days.map((d) => move(t(), key, farm.id, herd.id, d % 2 === 0 ? east.id : west.id, base + d * DAY)),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      days.map(() => 201),
    );
    assert.equal(
      (await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id,
      west.id,
      'day 11: West',
    );
    const stays = [
      ...(await history(t(), key, west.id, '?limit=100')).data,
      ...(await history(t(), key, east.id, '?limit=100')).data,
    ].sort((a, b) => Date.parse(a.from) - Date.parse(b.from));
    // Placed in West, then East on even days and West on odd ones: one stay per day after the placement.
    assert.equal(stays.length, 13);
    for (let i = 1; i < stays.length; i++) {
      assert.equal(stays[i - 1]!.until, stays[i]!.from, 'each stay ends where the next begins');
    }
    assert.equal(stays.at(-1)!.until, null);
    assert.equal((await paddock(t(), key, east.id)).last_grazed_at, iso(base + 11 * DAY));
  });

  test('a move is checked: the paddock, the subject and the time, with a 400 naming each; nothing is written', async () => {
    const { key, farm, east } = await farmWithPaddocks(t());
    const other = await make.farm(t(), key, { name: 'Other' });
    const elsewhere = await make.paddock(t(), key, other.id, { name: 'Elsewhere' });
    const herd = await make.group(t(), key, farm.id, { name: 'Herd' });
    const house = await make.device(t(), key, farm.id);
    const cases: [Record<string, unknown>, string][] = [
      [{ subject_id: herd.id, data: { to_paddock_id: 'pad_nope' } }, 'data.to_paddock_id'],
      [{ subject_id: herd.id, data: { to_paddock_id: elsewhere.id } }, 'data.to_paddock_id'],
      [{ subject_id: herd.id, data: { to_paddock_id: 7 } }, 'data.to_paddock_id'],
      [{ subject_id: herd.id, data: { to: { paddock_id: 'pad_nope' } } }, 'data.to.paddock_id'],
      [{ subject_id: house.id, data: { to_paddock_id: east.id } }, 'subject_id'],
      [{ data: { to_paddock_id: east.id } }, 'subject_id'],
      [{ subject_id: herd.id, data: { to_paddock_id: east.id }, at: iso(Date.now() + 2 * DAY) }, 'at'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm.id}/events`, { key, body: { type: 'move', ...body } }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
      assert.match(err.message, new RegExp(param.replace(/\./g, '\\.')));
    }
    const log = await make.fetched<List<FarmEvent>>(t(), key, `/v1/farms/${farm.id}/events?type=move`);
    assert.deepEqual(log.data, []);
    assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, null);
    // A move without a destination is a note, as before: logged, moving nothing.
    const note = await t().request('POST', `/v1/farms/${farm.id}/events`, {
      key,
      body: { type: 'move', subject_id: herd.id, data: { notes: 'walked them up the lane' } },
    });
    assert.equal(note.status, 201);
  });

  test("a device's paddock follows its reported position, and is derived again when an outline changes", async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const tag = await make.device(t(), key, farm.id, { type: 'tag', name: 'Collar 7', ...IN_WEST });
    assert.equal(tag.paddock_id, west.id, 'placed when created with a position');
    const device = () => make.fetched<Device>(t(), key, `/v1/devices/${tag.id}`);

    assert.equal((await make.report(t(), tag.device_key, IN_EAST)).status, 200);
    assert.equal((await device()).paddock_id, east.id, 'crossed the boundary');
    assert.equal((await make.report(t(), tag.device_key, OUTSIDE)).status, 200);
    assert.equal((await device()).paddock_id, null, 'outside every paddock');
    assert.equal((await make.report(t(), tag.device_key, IN_EAST)).status, 200);
    assert.equal((await device()).paddock_id, east.id);

    // East's outline is cleared: the device stands in no paddock; drawn again bigger, it is in East again.
    await make.fetched(t(), key, `/v1/paddocks/${east.id}`);
    const cleared = await t().request('PATCH', `/v1/paddocks/${east.id}`, { key, body: { geometry: null } });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal((await device()).paddock_id, null);
    await t().request('PATCH', `/v1/paddocks/${east.id}`, {
      key,
      body: { geometry: square(-92.32, 38.94, 0.03) },
    });
    assert.equal((await device()).paddock_id, east.id);
    // A new paddock drawn inside East around the device: the smaller outline wins.
    const corner = await make.paddock(t(), key, farm.id, {
      name: 'Corner',
      geometry: square(-92.316, 38.954, 0.002),
    });
    assert.equal((await device()).paddock_id, corner.id);
    // Deleting it puts the device back in East.
    await t().request('DELETE', `/v1/paddocks/${corner.id}`, { key });
    assert.equal((await device()).paddock_id, east.id);

    // An outline stored as something unusable contains nothing and fails nothing.
    await t()
      .database.db.updateTable('paddocks')
      .set({ geometry: '{"type":"Polygon","coordinates":[[1,2]]}' })
      .where('id', '=', west.id)
      .execute();
    assert.equal((await make.report(t(), tag.device_key, IN_WEST)).status, 200);
    assert.equal((await device()).paddock_id, null);
    assert.equal((await paddock(t(), key, west.id)).id, west.id);
  });

  test('a house crossing from one paddock into another records the stay change for the house and its flock', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const flock = await make.group(t(), key, farm.id, {
      name: 'Layers',
      species: 'chicken',
      paddock_id: west.id,
    });
    const house = await make.device(t(), key, farm.id, { name: 'House 1', group_id: flock.id });
    assert.equal((await make.report(t(), house.device_key, IN_WEST)).status, 200);
    const inWest = await paddock(t(), key, west.id);
    assert.deepEqual(inWest.occupied_by.houses, [{ id: house.id, name: 'House 1' }]);

    const crossedAt = Date.now();
    const crossed = await make.report(t(), house.device_key, { ...IN_EAST, battery: 80 });
    assert.equal(crossed.status, 200, JSON.stringify(crossed.body));

    const w = await paddock(t(), key, west.id);
    assert.deepEqual(w.occupied_by, { groups: [], animals: [], houses: [] });
    assert.ok(w.last_grazed_at !== null && Date.parse(w.last_grazed_at) >= crossedAt, 'left at the report');
    assert.equal(w.rest_days, 0);
    const e = await paddock(t(), key, east.id);
    assert.deepEqual(e.occupied_by.houses, [{ id: house.id, name: 'House 1' }]);
    assert.deepEqual(e.occupied_by.groups, [{ id: flock.id, name: 'Layers' }], 'the birds went with it');
    const houseStays = (await history(t(), key, west.id)).data.filter((s) => s.subject_type === 'house');
    assert.equal(houseStays.length, 1);
    assert.equal(houseStays[0]!.until, w.last_grazed_at);
    assert.deepEqual((await history(t(), key, east.id)).data.map((s) => [s.subject_type, s.until]).sort(), [
      ['group', null],
      ['house', null],
    ]);
    const logged = await make.fetched<List<FarmEvent>>(t(), key, `/v1/farms/${farm.id}/events?type=move`);
    // The crossing and the flock's move (the house's first placing, into West, was no move).
    assert.deepEqual(
      logged.data.map((ev) => [
        ev.subject_type,
        ev.data.reason,
        (ev.data.to as { paddock_id?: string })?.paddock_id ?? ev.data.to_paddock_id,
      ]),
      [
        ['group', 'house_moved', east.id],
        ['device', 'position', east.id],
      ],
    );
    // Reporting again from the same place records nothing more.
    assert.equal((await make.report(t(), house.device_key, IN_EAST)).status, 200);
    const again = await make.fetched<List<FarmEvent>>(t(), key, `/v1/farms/${farm.id}/events?type=move`);
    assert.equal(again.data.length, 2);
    const houses = await make.fetched<List<{ id: string; paddock_id: string | null }>>(
      t(),
      key,
      `/v1/farms/${farm.id}/houses`,
    );
    assert.equal(houses.data.find((h) => h.id === house.id)?.paddock_id, east.id, 'the houses view shows it');
  });

  test('a house parked at a fence stays in its paddock while its GPS wanders a few metres over; a person’s edit places it exactly', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const flock = await make.group(t(), key, farm.id, {
      name: 'Broilers',
      species: 'chicken',
      paddock_id: west.id,
    });
    const house = await make.device(t(), key, farm.id, { name: 'House 2', group_id: flock.id });
    // Metres east of the fence between West and East (lon -92.32); negative is west of it, in West.
    const fence = (m: number) => ({
      lat: 38.955,
      lon: -92.32 + m / (111_320 * Math.cos((38.955 * Math.PI) / 180)),
    });
    const where = async () => (await make.fetched<Device>(t(), key, `/v1/devices/${house.id}`)).paddock_id;
    const moves = async () =>
      (
        await make.fetched<List<FarmEvent>>(
          t(),
          key,
          `/v1/farms/${farm.id}/events?type=move&subject_id=${house.id}`,
        )
      ).data.length;
    assert.equal((await make.report(t(), house.device_key, fence(-3))).status, 200);
    assert.equal(await where(), west.id);
    for (const m of [2, -1, 4.5, -2, 3]) {
      assert.equal((await make.report(t(), house.device_key, fence(m))).status, 200);
      assert.equal(await where(), west.id, `${m} m over the fence is still West`);
    }
    assert.equal(await moves(), 0, 'no crossing was logged');
    assert.equal((await paddock(t(), key, west.id)).occupied_by.groups.length, 1, 'the flock stayed');
    // Well over: it crossed, once.
    assert.equal((await make.report(t(), house.device_key, fence(12))).status, 200);
    assert.equal(await where(), east.id);
    assert.equal(await moves(), 1);
    // Back by a few metres: still East (the margin holds either way).
    assert.equal((await make.report(t(), house.device_key, fence(-4))).status, 200);
    assert.equal(await where(), east.id);
    // A person putting it 2 m into West means West.
    const placed = await t().request<Device>('PATCH', `/v1/devices/${house.id}`, { key, body: fence(-2) });
    assert.equal(placed.status, 200, JSON.stringify(placed.body));
    assert.equal(await where(), west.id);
  });

  test('a report without a position, or at the position already placed, runs no statement for placing', async () => {
    const { key, farm } = await farmWithPaddocks(t());
    const tag = await make.device(t(), key, farm.id, { type: 'tag', name: 'Collar 9' });
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const origin = Date.now() - DAY;
    const send = async (minutes: number, body: Record<string, unknown>) => {
      counter.count = 0;
      const at = origin + minutes * 60_000;
      const reading = { metric: 'device.battery_pct', value: 90, at: new Date(at).toISOString() };
      await ingestReport(db, { deviceId: tag.id }, { readings: [reading], ...body }, at);
      return counter.count;
    };
    await send(0, {});
    const bare = await send(1, {});
    const moved = await send(2, IN_WEST);
    const same = await send(3, IN_WEST);
    const bareAgain = await send(4, {});
    assert.ok(moved > bare, `placing ran (${moved} > ${bare})`);
    // Storing the position itself (docs/map.md) is one statement more on SQLite, none on PostgreSQL.
    const stored = t().engine === 'sqlite' ? 1 : 0;
    assert.equal(same, bare + stored, 'the same position places nothing again');
    assert.equal(bareAgain, bare);
    assert.equal((await make.fetched<Device>(t(), key, `/v1/devices/${tag.id}`)).paddock_id !== null, true);
  });

  test('a task with paddock_id done records the move exactly once', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const task = await make.task(t(), key, farm.id, {
      title: 'Move the herd East',
      subject_id: herd.id,
      paddock_id: east.id,
    });
    assert.equal(task.paddock_id, east.id);
    assert.equal(
      (await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id,
      west.id,
      'planned',
    );
    const planned = await make.fetched<List<Task>>(
      t(),
      key,
      `/v1/farms/${farm.id}/tasks?paddock_id=${east.id}`,
    );
    assert.deepEqual(
      planned.data.map((x) => x.id),
      [task.id],
    );

    const [first, second] = await Promise.all([
      t().request<Task>('POST', `/v1/tasks/${task.id}/done`, { key }),
      t().request<Task>('POST', `/v1/tasks/${task.id}/done`, { key }),
    ]);
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.equal((await t().request('POST', `/v1/tasks/${task.id}/done`, { key })).status, 200);
    const moves = await make.fetched<List<FarmEvent>>(
      t(),
      key,
      `/v1/farms/${farm.id}/events?subject_id=${herd.id}&type=move`,
    );
    assert.equal(moves.data.length, 1, JSON.stringify(moves.data));
    assert.deepEqual(moves.data[0]!.data, { to_paddock_id: east.id, reason: 'task', task_id: task.id });
    assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, east.id);
    assert.equal((await paddock(t(), key, west.id)).rest_days, 0);

    // Done through PATCH too, once.
    const back = await make.task(t(), key, farm.id, {
      title: 'Back West',
      subject_id: herd.id,
      paddock_id: west.id,
    });
    for (let i = 0; i < 2; i++) {
      const res = await t().request('PATCH', `/v1/tasks/${back.id}`, { key, body: { status: 'done' } });
      assert.equal(res.status, 200);
    }
    const after = await make.fetched<List<FarmEvent>>(
      t(),
      key,
      `/v1/farms/${farm.id}/events?subject_id=${herd.id}&type=move`,
    );
    assert.equal(after.data.length, 2);
    assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, west.id);

    // A destination needs an animal or group to move, and a paddock of this farm.
    const house = await make.device(t(), key, farm.id);
    const refusals: [Record<string, unknown>, string][] = [
      [{ subject_id: house.id, paddock_id: east.id }, 'paddock_id'],
      [{ paddock_id: east.id }, 'paddock_id'],
      [{ subject_id: herd.id, paddock_id: 'pad_nope' }, 'paddock_id'],
    ];
    for (const [body, param] of refusals) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm.id}/tasks`, { key, body: { title: 'x', ...body } }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
  });

  test("the brief's past rest target and ready to graze use rest_days and occupied_by", async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    // Typed long ago, but the herd is in it: not resting.
    await t().request('PATCH', `/v1/paddocks/${west.id}`, {
      key,
      body: { last_grazed_at: iso(Date.now() - 90 * DAY) },
    });
    // East was left 40 days ago (a late move in and out): past its 30-day target.
    const south = await make.paddock(t(), key, farm.id, { name: 'South', rest_days_target: 60 });
    const steer = await make.animal(t(), key, farm.id, { name: 'Steer', paddock_id: east.id });
    assert.equal((await move(t(), key, farm.id, steer.id, south.id, Date.now() - 40 * DAY)).status, 201);

    const e = await paddock(t(), key, east.id);
    assert.equal(e.rest_days, 40);
    const w = await paddock(t(), key, west.id);
    assert.equal(w.rest_days, null);
    assert.deepEqual(w.occupied_by.groups, [{ id: herd.id, name: 'Herd' }]);
    const s = await paddock(t(), key, south.id);
    assert.deepEqual(s.occupied_by.animals, [{ id: steer.id, name: 'Steer', tag: null }]);

    const brief = await make.fetched<{
      items: { kind: string; subject_id: string | null; detail: string }[];
    }>(t(), key, `/v1/farms/${farm.id}/brief`);
    const rest = brief.items.filter((i) => i.kind === 'paddock_rest');
    assert.deepEqual(
      rest.map((i) => i.subject_id),
      [east.id],
    );
    assert.match(rest[0]!.detail, /Rested 40 days; target 30 days\. Ready to graze\./);
  });

  test('the grazing history pages newest first, and is 404 for a paddock of another account', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const base = Date.now() - 20 * DAY;
    for (let i = 0; i < 6; i++) {
      const to = i % 2 === 0 ? east.id : west.id;
      assert.equal((await move(t(), key, farm.id, herd.id, to, base + i * DAY)).status, 201);
    }
    const first = await history(t(), key, west.id, '?limit=2');
    assert.equal(first.data.length, 2);
    assert.equal(first.has_more, true);
    const rest = await history(
      t(),
      key,
      west.id,
      `?limit=10&before=${encodeURIComponent(first.next_before!)}`,
    );
    const all = [...first.data, ...rest.data];
    assert.equal(all.length, 4, 'placed at creation, and back three times');
    const froms = all.map((s) => Date.parse(s.from));
    assert.deepEqual(
      froms,
      [...froms].sort((a, b) => b - a),
    );
    assert.equal(all[0]!.until, null, 'the herd is in West now');
    const stranger = await t().account('Stranger');
    expectError(
      await t().request('GET', `/v1/paddocks/${west.id}/grazing`, { key: stranger.live_key }),
      404,
      'not_found',
    );
  });

  test('MCP: log_event moves a group through the same service, list_paddocks shows who is in each, complete_task moves once', async () => {
    const { key, farm, west, east } = await farmWithPaddocks(t());
    const herd = await make.group(t(), key, farm.id, { name: 'Herd', paddock_id: west.id });
    const mcp = await connect(t(), key, ERAS[1]!);
    try {
      const at = iso(Date.now() - 5 * DAY);
      const event = await ok(mcp.client, 'log_event', {
        farm_id: farm.id,
        type: 'move',
        subject_id: herd.id,
        data: { to_paddock_id: east.id },
        at,
      });
      assert.equal(event.type, 'move');
      const paddocks = await ok(mcp.client, 'list_paddocks', { farm_id: farm.id });
      const w = paddocks.data.find((p: Paddock) => p.id === west.id);
      const e = paddocks.data.find((p: Paddock) => p.id === east.id);
      assert.equal(w.rest_days, 5);
      assert.equal(w.last_grazed_at, at);
      assert.deepEqual(e.occupied_by.groups, [{ id: herd.id, name: 'Herd' }]);
      assert.equal(e.rest_days, null);
      assert.match(
        await refused(mcp.client, 'log_event', {
          farm_id: farm.id,
          type: 'move',
          subject_id: herd.id,
          data: { to_paddock_id: 'pad_nowhere' },
        }),
        /data\.to_paddock_id/,
      );
      const task = await ok(mcp.client, 'add_task', {
        farm_id: farm.id,
        title: 'Herd back West',
        subject_id: herd.id,
        paddock_id: west.id,
      });
      await ok(mcp.client, 'complete_task', { task_id: task.id });
      await ok(mcp.client, 'complete_task', { task_id: task.id });
      assert.equal((await make.fetched<Group>(t(), key, `/v1/groups/${herd.id}`)).paddock_id, west.id);
      const moves = await make.fetched<List<FarmEvent>>(
        t(),
        key,
        `/v1/farms/${farm.id}/events?subject_id=${herd.id}&type=move`,
      );
      assert.equal(moves.data.length, 2);
    } finally {
      await mcp.close();
    }
  });
});
