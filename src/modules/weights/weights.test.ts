import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import { callTool, connect, ERAS, ok } from '../../../test/mcp.ts';
import { signedInPerson } from '../../../test/people.ts';
import type { AnimalWeights, GroupWeights, WeightEntry } from './schemas.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

type Weights = Omit<AnimalWeights, 'data'> & { data: WeightEntry[] };

async function herdFarm(t: TestApp, body: Record<string, unknown> = {}) {
  const acct = await t.sharedAccount();
  const key = acct.live_key;
  const farm = (await make.farm(t, key, body)).id;
  return { acct, key, farm };
}

function logWeight(t: TestApp, key: string, farm: string, animal: string, kg: number, at: number) {
  return make.posted(t, key, `/v1/farms/${farm}/events`, {
    type: 'weight',
    subject_id: animal,
    data: { kg },
    at: iso(at),
  });
}

async function weights(t: TestApp, key: string, animal: string, query = ''): Promise<Weights> {
  const res = await t.request<Weights>('GET', `/v1/animals/${animal}/weights${query}`, { key });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

interface BriefReply {
  items: Array<{ kind: string; title: string; detail: string; subject_id: string | null; severity: string }>;
  counts: Record<string, number>;
  text: string;
}

forEachEngine('weights and average daily gain', (t) => {
  test('one history from every source: a weight event, a scale head’s reading by EID and the chute; gains, ADG over a period, projection', async () => {
    const { key, farm } = await herdFarm(t());
    const now = Date.now();
    const eid = `982000${String(now).slice(-9)}`;
    const cow = await make.animal(t(), key, farm, { name: 'Bess', eid });
    await logWeight(t(), key, farm, cow.id, 300, now - 100 * DAY);
    const scale = await make.device(t(), key, farm, { type: 'reader', name: 'Chute scale' });
    const reported = await make.report(t(), scale.device_key, {
      readings: [
        {
          metric: 'weight.kg',
          value: 330,
          eid: `LA ${eid.slice(0, 3)} ${eid.slice(3)}`,
          at: iso(now - 70 * DAY),
        },
      ],
    });
    assert.equal(reported.status, 200, JSON.stringify(reported.body));
    const chute = await t().request<Weights>('POST', `/v1/animals/${cow.id}/weights`, {
      key,
      body: { kg: 360, at: iso(now - 10 * DAY) },
    });
    assert.equal(chute.status, 201, JSON.stringify(chute.body));

    const all = await weights(t(), key, cow.id);
    assert.deepEqual(
      all.data.map((w) => [w.kg, w.gain_kg_per_day, w.source]),
      [
        [360, 0.5, 'chute'],
        [330, 1, 'scale'],
        [300, null, 'event'],
      ],
      'newest first, each with its gain since the one before and its source',
    );
    assert.equal(all.adg_kg_per_day, 0.667, '60 kg over 90 days');
    assert.equal(all.projected_kg, 365, 'the latest weight carried 10 days at the latest gain');
    assert.ok(Math.abs(Date.parse(all.projected_at ?? '') - Date.now()) < 60_000, 'projected to now');

    const recent = await weights(t(), key, cow.id, `?since=${iso(now - 80 * DAY)}`);
    assert.equal(recent.data.length, 2);
    assert.equal(recent.adg_kg_per_day, 0.5, 'over the period only: 330 to 360 in 60 days');
    const lastMonth = await weights(t(), key, cow.id, '?days=30');
    assert.deepEqual(
      lastMonth.data.map((w) => w.kg),
      [360],
    );
    assert.equal(
      lastMonth.data[0]?.gain_kg_per_day,
      0.5,
      'the gain still counts the weight before the period',
    );
    assert.equal(lastMonth.adg_kg_per_day, null, 'one weight has no ADG');

    // An edited weight event is an edited weight: the log is the one history.
    const [first] = await make.farmEvents(t(), farm, 'weight');
    const patched = await t().request('PATCH', `/v1/events/${first?.id}`, {
      key,
      body: { data: { kg: 290 } },
    });
    assert.equal(patched.status, 200);
    assert.equal((await weights(t(), key, cow.id)).data[2]?.kg, 290);
  });

  test('the projection stops 90 days after the latest weight; a weight less than a day after another has no gain', async () => {
    const { key, farm } = await herdFarm(t());
    const now = Date.now();
    const steer = await make.animal(t(), key, farm, { name: 'Steer' });
    await logWeight(t(), key, farm, steer.id, 200, now - 200 * DAY);
    await logWeight(t(), key, farm, steer.id, 250, now - 150 * DAY);
    await logWeight(t(), key, farm, steer.id, 251, now - 150 * DAY + 3_600_000);
    const answer = await weights(t(), key, steer.id);
    assert.equal(answer.data[0]?.gain_kg_per_day, null, 'an hour apart: no gain');
    const lamb = await make.animal(t(), key, farm, { name: 'Lamb', species: 'sheep' });
    await logWeight(t(), key, farm, lamb.id, 20, now - 200 * DAY);
    await logWeight(t(), key, farm, lamb.id, 30, now - 150 * DAY);
    const capped = await weights(t(), key, lamb.id);
    assert.equal(capped.data[0]?.gain_kg_per_day, 0.2);
    assert.equal(capped.projected_kg, 48, '30 kg + 90 days × 0.2, not 150 days');
    assert.equal(capped.projected_at, iso(now - 150 * DAY + 90 * DAY));
  });

  test('a weight impossible for the species is refused; bad periods name their member', async () => {
    const { key, farm } = await herdFarm(t());
    const ewe = await make.animal(t(), key, farm, { species: 'sheep' });
    const heavy = await t().request('POST', `/v1/animals/${ewe.id}/weights`, { key, body: { kg: 650 } });
    assert.equal(expectError(heavy, 400, 'invalid_request').param, 'kg');
    assert.equal((await weights(t(), key, ewe.id)).data.length, 0, 'nothing stored');
    const both = await t().request('GET', `/v1/animals/${ewe.id}/weights?days=3&since=2026-01-01`, { key });
    assert.equal(expectError(both, 400, 'invalid_request').param, 'days');
    const backwards = await t().request(
      'GET',
      `/v1/animals/${ewe.id}/weights?since=2026-02-01&until=2026-01-01`,
      { key },
    );
    assert.equal(expectError(backwards, 400, 'invalid_request').param, 'until');
    const other = await t().account();
    const hidden = await t().request('GET', `/v1/animals/${ewe.id}/weights`, { key: other.live_key });
    expectError(hidden, 404, 'not_found');
  });

  test('a group’s figures over each active animal’s latest weight: head weighed, mean, min, max, spread, mean ADG, lowest gain', async () => {
    const { key, farm } = await herdFarm(t());
    const now = Date.now();
    const mob = await make.group(t(), key, farm, { name: 'Steers' });
    const add = (name: string, body: Record<string, unknown> = {}) =>
      make.animal(t(), key, farm, { name, group_id: mob.id, ...body });
    const [a, b, c, sold, unweighed] = [
      await add('A'),
      await add('B'),
      await add('C'),
      await add('Sold', { status: 'sold' }),
      await add('Unweighed'),
    ];
    for (const [animal, before, after] of [
      [a, 300, 330],
      [b, 310, 316],
      [c, 320, 314],
      [sold, 300, 400],
    ] as const) {
      await logWeight(t(), key, farm, animal.id, before, now - 40 * DAY);
      await logWeight(t(), key, farm, animal.id, after, now - 10 * DAY);
    }
    const res = await t().request<GroupWeights>('GET', `/v1/groups/${mob.id}/weights`, { key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const g = res.body;
    assert.equal(g.head, 4, 'active animals');
    assert.equal(g.head_weighed, 3);
    assert.equal(g.mean_kg, 320);
    assert.equal(g.min_kg, 314);
    assert.equal(g.max_kg, 330);
    assert.equal(g.spread_kg, 16);
    assert.equal(g.mean_adg_kg_per_day, 0.333, '(1 + 0.2 − 0.2) / 3');
    assert.deepEqual(
      g.lowest_gain.map((l) => [l.name, l.gain_kg_per_day]),
      [
        ['C', -0.2],
        ['B', 0.2],
        ['A', 1],
      ],
    );
    assert.ok(!g.lowest_gain.some((l) => l.animal_id === unweighed.id));
    const narrowed = await t().request<GroupWeights>(
      'GET',
      `/v1/groups/${mob.id}/weights?since=${iso(now - 5 * DAY)}`,
      { key },
    );
    assert.equal(narrowed.body.head_weighed, 0, 'no latest weight in the last five days');
    assert.equal(narrowed.body.mean_kg, null);
  });

  test('settings.weights are checked and kept', async () => {
    const { key, farm } = await herdFarm(t());
    const bad = await t().request('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { settings: { weights: { min_adg_kg_per_day: 'fast' } } },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'settings.weights.min_adg_kg_per_day');
    const unknown = await t().request('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { settings: { weights: { interval: 30 } } },
    });
    assert.equal(expectError(unknown, 400, 'invalid_request').param, 'settings.weights.interval');
    const ok = await t().request<{ settings: Record<string, unknown> }>('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { settings: { weights: { min_adg_kg_per_day: 0.8, weigh_interval_days: 30 } } },
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.settings.weights, { min_adg_kg_per_day: 0.8, weigh_interval_days: 30 });
  });
  test('the brief names animals that lost weight or gain below the farm’s threshold, and groups not weighed within the interval', async () => {
    const { acct, key, farm } = await herdFarm(t(), {
      settings: { weights: { min_adg_kg_per_day: 0.8, weigh_interval_days: 30 } },
    });
    const now = Date.now();
    const steers = await make.group(t(), key, farm, { name: 'Steers' });
    const heifers = await make.group(t(), key, farm, { name: 'Heifers' });
    await make.group(t(), key, farm, { name: 'Never weighed' });
    const add = (name: string, group: string) => make.animal(t(), key, farm, { name, group_id: group });
    const good = await add('Good', steers.id);
    const slow = await add('Slow', steers.id);
    const losing = await add('Losing', steers.id);
    const old = await add('Old', heifers.id);
    for (const [animal, after] of [
      [good, 330],
      [slow, 312],
      [losing, 295],
    ] as const) {
      await logWeight(t(), key, farm, animal.id, 300, now - 30 * DAY);
      await logWeight(t(), key, farm, animal.id, after, now - 5 * DAY);
    }
    // The heifers' last weights are 40 days old: an old loss is not today's news, the weighing is.
    await logWeight(t(), key, farm, old.id, 300, now - 70 * DAY);
    await logWeight(t(), key, farm, old.id, 280, now - 40 * DAY);

    const res = await t().request<BriefReply>('GET', `/v1/farms/${farm}/brief`, { key });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const weightItems = res.body.items.filter((i) => i.kind === 'weight_gain');
    assert.deepEqual(
      weightItems.map((i) => [i.title, i.subject_id]),
      [
        ['Losing lost weight', losing.id],
        ['Slow is gaining slowly', slow.id],
      ],
    );
    const groups = res.body.items.filter((i) => i.kind === 'group_not_weighed');
    assert.deepEqual(
      groups.map((i) => [i.title, i.subject_id]),
      [['Heifers not weighed for 40 days', heifers.id]],
    );
    assert.equal(res.body.counts.animals_gain_low, 2);
    assert.equal(res.body.counts.groups_not_weighed, 1);
    assert.match(res.body.text, /Weights: Losing lost weight and Slow is gaining slowly\./);

    // A Spanish reader: the same items in whole Spanish sentences, the numbers as the English writes them.
    const spanish = await signedInPerson(t(), acct, 'owner');
    assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
    const es = await spanish.request<BriefReply>('GET', `/v1/farms/${farm}/brief`);
    assert.equal(es.status, 200, JSON.stringify(es.body));
    const esGains = es.body.items.filter((i) => i.kind === 'weight_gain');
    assert.deepEqual(
      esGains.map((i) => [i.title, i.detail]),
      [
        ['Losing perdió peso', '-0.2 kg/día desde el pesaje anterior; 295 kg.'],
        [
          'Slow está ganando peso lentamente',
          '0.48 kg/día, por debajo de los 0.8 kg/día de la granja; 312 kg.',
        ],
      ],
    );
    const esGroups = es.body.items.filter((i) => i.kind === 'group_not_weighed');
    assert.deepEqual(
      esGroups.map((i) => [i.title, i.detail]),
      [['Heifers sin pesar desde hace 40 días', 'La granja pesa cada 30 días; 1 cabeza.']],
    );
    assert.match(es.body.text, /Pesos: Losing perdió peso y Slow está ganando peso lentamente\./);
  });

  test('MCP’s herdbook toolset records a weight and answers an animal’s gain and a group’s figures', async () => {
    const { key, farm } = await herdFarm(t());
    const now = Date.now();
    const mob = await make.group(t(), key, farm, { name: 'Weaners' });
    const calf = await make.animal(t(), key, farm, { name: 'Calf', group_id: mob.id });
    await logWeight(t(), key, farm, calf.id, 200, now - 20 * DAY);
    const mcp = await connect(t(), key, ERAS[1]!, { path: '/mcp?toolsets=herdbook' });
    try {
      const recorded = await ok(mcp.client, 'record_weight', {
        animal_id: calf.id,
        kg: 216,
        idempotency_key: 'calf-1',
      });
      assert.equal(recorded.data[0].source, 'chute');
      assert.equal(recorded.data[0].gain_kg_per_day, 0.8);
      const gain = await callTool(mcp.client, 'animal_weights', { animal_id: calf.id });
      assert.match(gain.text, /^Latest 216 kg at \d{4}-\d\d-\d\dT[\d:.]+Z; gain 0\.8 kg\/day\./);
      const group = await ok(mcp.client, 'group_weights', { group_id: mob.id });
      assert.equal(group.head_weighed, 1);
      assert.equal(group.mean_adg_kg_per_day, 0.8);
      const misread = await callTool(mcp.client, 'record_weight', { animal_id: calf.id, kg: 2500 });
      assert.equal(misread.isError, true);
      assert.match(misread.text, /not a possible weight for cattle/);
    } finally {
      await mcp.close();
    }
  });
});
