import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import type { Animal, List } from '../../../test/replies.ts';
import type { AnimalWeights, ImportedSession, SessionPreview, WeighSession, WeightEntry } from './schemas.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
const DATAMARS = fixture('datamars-xr5000.csv');
const GALLAGHER = fixture('gallagher-tsi.csv');
const GENERIC = fixture('generic.csv');

type Weights = Omit<AnimalWeights, 'data'> & { data: WeightEntry[] };

/**
 * A farm (Pacific/Auckland: the files' dates are local) with the steers the sample files weigh: 101–106, with
 * their EIDs in an account of their own (EIDs are one per account), or tags only in the shared account.
 */
async function steerFarm(t: TestApp, withEids = true) {
  const acct = withEids ? await t.account() : await t.sharedAccount();
  const key = acct.live_key;
  const farm = (await make.farm(t, key, { timezone: 'Pacific/Auckland' })).id;
  const steers: Record<string, Animal> = {};
  for (const n of ['101', '102', '103', '104', '106']) {
    const eid = n === '104' || !withEids ? undefined : `982000123456${n.replace(/^1/, '0')}`;
    steers[n] = await make.animal(t, key, farm, { name: `Steer ${n}`, tag: n, ...(eid ? { eid } : {}) });
  }
  return { key, farm, steers };
}

function importFile(t: TestApp, key: string, farm: string, body: Record<string, unknown>, headers = {}) {
  return t.request<SessionPreview & ImportedSession>('POST', `/v1/farms/${farm}/weigh-sessions/import`, {
    key,
    body,
    headers,
  });
}

async function weightsOf(t: TestApp, key: string, animal: string): Promise<WeightEntry[]> {
  return (await t.request<Weights>('GET', `/v1/animals/${animal}/weights`, { key })).body.data;
}

forEachEngine('weigh sessions', (t) => {
  test('a Datamars (Tru-Test XR5000) session: the dry run matches by EID in any ISO form, then by tag; unmatched, repeated and impossible rows reported; imported exactly once', async () => {
    const { key, farm, steers } = await steerFarm(t());
    const dry = await importFile(t(), key, farm, { content: DATAMARS, dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    const p = dry.body;
    assert.equal(p.format, 'datamars', 'read from the header (VID)');
    assert.deepEqual(p.mapping, {
      eid: 'EID',
      tag: 'VID',
      kg: 'Weight',
      date: 'Date',
      time: 'Time',
      traits: { condition_score: 'BCS', note: 'Note' },
    });
    assert.equal(p.rows, 7);
    assert.equal(p.matched_by_eid, 3, '982 000…, 982000… and a stick reader’s LA 982 …');
    assert.equal(p.matched_by_tag, 1, 'steer 104 has no EID: its VID');
    assert.equal(p.matched, 4);
    assert.deepEqual(
      p.unmatched.map((u) => [u.row, u.eid]),
      [[6, '982000123456099']],
    );
    assert.deepEqual(
      p.duplicates.map((d) => [d.row, d.animal_id]),
      [[7, steers['102']?.id]],
    );
    assert.deepEqual(
      p.refused.map((r) => [r.row, r.animal_id]),
      [[8, steers['106']?.id]],
      '4,150 kg is no steer',
    );
    assert.match(p.refused[0]?.reason ?? '', /not a possible weight for cattle/);
    assert.equal(
      (await weightsOf(t(), key, steers['101']?.id as string)).length,
      0,
      'a dry run stores nothing',
    );

    const first = await importFile(
      t(),
      key,
      farm,
      { content: DATAMARS, name: 'May weigh' },
      { 'idempotency-key': 'may-weigh-1' },
    );
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const s = first.body;
    assert.equal(s.already_imported, false);
    assert.equal(s.head_count, 4);
    assert.equal(s.mean_kg, 413.3, '(412.5 + 398 + 455.5 + 387) / 4');
    assert.equal(s.min_kg, 387);
    assert.equal(s.max_kg, 455.5);
    assert.equal(s.adg_kg_per_day, null, 'the first session has nothing before it');
    assert.deepEqual(
      s.histogram.map((b) => [b.from_kg, b.count]),
      [
        [380, 1],
        [390, 1],
        [400, 0],
        [410, 1],
        [420, 0],
        [430, 0],
        [440, 0],
        [450, 1],
      ],
    );
    const w103 = await weightsOf(t(), key, steers['103']?.id as string);
    assert.deepEqual(
      w103.map((w) => [w.kg, w.source, w.session_id, w.at]),
      [[455.5, 'session', s.id, '2026-04-30T20:03:55.000Z']],
      'the farm’s local time (NZST) as UTC',
    );
    const [event] = await make
      .farmEvents(t(), farm, 'weight')
      .then((all) => all.filter((e) => e.subject_id === steers['103']?.id));
    assert.deepEqual(event?.data, {
      kg: 455.5,
      source: 'session',
      session_id: s.id,
      eid: '982000123456003',
      tag: '103',
      condition_score: '3.5',
      note: 'lame RF',
    });

    // The same request again (Idempotency-Key), and the same file again without one: nothing stored twice.
    const replay = await importFile(
      t(),
      key,
      farm,
      { content: DATAMARS, name: 'May weigh' },
      { 'idempotency-key': 'may-weigh-1' },
    );
    assert.equal(replay.status, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    const again = await importFile(t(), key, farm, { content: DATAMARS });
    assert.equal(again.status, 200);
    assert.equal(again.body.already_imported, true);
    assert.equal(again.body.id, s.id);
    const redo = await importFile(t(), key, farm, { content: DATAMARS, dry_run: true });
    assert.equal(redo.body.imported_as, s.id, 'a dry run says the file is in already');
    assert.equal(redo.body.duplicates.length, 5, 'and every stored weight is a repeat');
    assert.equal((await make.farmEvents(t(), farm, 'weight')).length, 4, 'four weights, once each');
    const sent = await make.outboxEvents(t(), farm, 'weigh_session.imported');
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.data.id, s.id);

    const listed = await t().request<List<WeighSession>>('GET', `/v1/farms/${farm}/weigh-sessions`, { key });
    assert.deepEqual(
      listed.body.data.map((x) => x.id),
      [s.id],
    );
    const got = await t().request<WeighSession>('GET', `/v1/weigh-sessions/${s.id}`, { key });
    assert.equal(got.body.head_count, 4);
  });

  test('a file with nothing to store is a 400 with the counts, not an empty session; sent again once its animal exists, it is stored', async () => {
    const { key, farm } = await steerFarm(t(), false);
    const content = 'VID,Weight,Date\nNEW-1,301,2026-05-01\n';
    const refused = await importFile(t(), key, farm, { content });
    const error = expectError(refused, 400, 'invalid_request');
    assert.equal(error.param, 'content');
    assert.match(error.message, /1 not matched to an animal/);
    const list = await make.fetched<{ data: unknown[] }>(t(), key, `/v1/farms/${farm}/weigh-sessions`);
    assert.deepEqual(list.data, [], 'no empty session');
    const calf = await make.animal(t(), key, farm, { tag: 'NEW-1' });
    const stored = await importFile(t(), key, farm, { content });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    assert.equal(stored.body.head_count, 1);
    assert.deepEqual(
      (await weightsOf(t(), key, calf.id)).map((w) => w.kg),
      [301],
    );
    // A row dated next year (a misread date, a scale head's clock) is refused as the row it is.
    const ahead = `VID,Weight,Date\nNEW-1,305,${new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10)}\n`;
    const future = await importFile(t(), key, farm, { content: ahead });
    assert.match(expectError(future, 400, 'invalid_request').message, /1 refused|refused/);
    assert.deepEqual(
      (await weightsOf(t(), key, calf.id)).map((w) => w.kg),
      [301],
    );
  });

  test('a Gallagher (TSi) session after it: the line above the header skipped, ADG since the previous session, unmatched animals created on request', async () => {
    const { key, farm, steers } = await steerFarm(t());
    const may = await importFile(t(), key, farm, { content: DATAMARS });
    assert.equal(may.status, 201);
    const dry = await importFile(t(), key, farm, { content: GALLAGHER, dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.format, 'gallagher');
    assert.equal(dry.body.unit, 'kg', 'from "Weight (kg)"');
    assert.equal(dry.body.matched, 4);
    assert.deepEqual(
      dry.body.unmatched.map((u) => u.tag),
      ['777'],
    );
    assert.deepEqual(
      dry.body.duplicates.map((d) => d.row),
      [8],
      'line 8: the header is line 2',
    );
    assert.deepEqual(
      dry.body.refused.map((r) => [r.row, r.reason]),
      [[9, 'No weight.']],
    );

    const noSpecies = await importFile(t(), key, farm, { content: GALLAGHER, create_unmatched: true });
    assert.equal(expectError(noSpecies, 400, 'invalid_request').param, 'species');
    const june = await importFile(t(), key, farm, {
      content: GALLAGHER,
      create_unmatched: true,
      species: 'cattle',
    });
    assert.equal(june.status, 201, JSON.stringify(june.body));
    assert.equal(june.body.head_count, 5);
    assert.equal(june.body.created_animals, 1);
    assert.deepEqual(june.body.unmatched, [], 'the unmatched steer was created');
    assert.equal(june.body.previous_session_id, may.body.id);
    // A little over 30 days: 101 +28.5 kg, 102 +21.5, 103 +24.5, 104 +14.5: 0.95, 0.716, 0.816, 0.483 kg/day.
    assert.equal(june.body.adg_kg_per_day, 0.741);
    const found = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?q=982000777000001`, {
      key,
    });
    assert.equal(found.body.data.length, 1);
    assert.equal(found.body.data[0]?.tag, '777');
    const w101 = await weightsOf(t(), key, steers['101']?.id as string);
    assert.deepEqual(
      w101.map((w) => w.gain_kg_per_day),
      [0.95, null],
    );
  });

  test('any CSV through the mapping the person confirms: a dry run names the columns, the import keeps extra traits', async () => {
    const { key, farm, steers } = await steerFarm(t(), false);
    const guess = await importFile(t(), key, farm, { content: GENERIC, dry_run: true });
    const error = expectError(guess, 400, 'invalid_request');
    assert.equal(error.param, 'mapping.eid');
    assert.match(error.message, /Animal, Tag no, Weight kg, Weighed, Score/, 'the file’s columns are listed');
    const mapping = { tag: 'Tag no', kg: 'Weight kg', date: 'Weighed', traits: { condition_score: 'Score' } };
    const dry = await importFile(t(), key, farm, { content: GENERIC, mapping, dry_run: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.format, 'csv');
    assert.equal(dry.body.matched_by_tag, 3);
    const unconfirmed = await importFile(t(), key, farm, { content: GENERIC, format: 'csv' });
    assert.equal(expectError(unconfirmed, 400, 'invalid_request').param, 'mapping.eid');
    const wrong = await importFile(t(), key, farm, { content: GENERIC, mapping: { ...mapping, kg: 'Mass' } });
    assert.equal(expectError(wrong, 400, 'invalid_request').param, 'mapping.kg');
    const done = await importFile(t(), key, farm, { content: GENERIC, mapping });
    assert.equal(done.status, 201, JSON.stringify(done.body));
    assert.equal(done.body.head_count, 3);
    assert.equal(done.body.mean_kg, 461.5, 'decimal commas read: (455 + 430.5 + 499) / 3');
    const [event] = (await make.farmEvents(t(), farm, 'weight')).filter(
      (e) => e.subject_id === steers['103']?.id,
    );
    assert.equal(event?.data.condition_score, '3.5');
    assert.equal(event?.at, Date.parse('2026-06-29T21:02:00Z'));
  });

  test('a file that cannot be read is a 400 naming content; another account’s farm is a 404', async () => {
    const { key, farm } = await steerFarm(t(), false);
    const noHeader = await importFile(t(), key, farm, { content: 'a,b\n1,2\n' });
    assert.equal(expectError(noHeader, 400, 'invalid_request').param, 'content');
    const broken = await importFile(t(), key, farm, { content: 'EID,Weight\n"982000123456001,400\n' });
    assert.equal(expectError(broken, 400, 'invalid_request').param, 'content');
    const other = await t().account();
    const hidden = await importFile(t(), other.live_key, farm, { content: DATAMARS, dry_run: true });
    expectError(hidden, 404, 'not_found');
  });
});
