/**
 * GET /v1/farms/{farm}/animals/changes: the field app's incremental refresh (docs/offline.md). Without
 * `since`, every animal a page at a time; with the `next_since` of an earlier answer, only what was added,
 * changed (PATCH, a group or paddock deleted under it) or deleted since, on both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Animal, ErrorReply } from '../../../test/replies.ts';
import type { AnimalChanges as ChangesSchema } from './schemas.ts';
import {
  animalChanges,
  CHANGES_OVERLAP_MS,
  createAnimal,
  pruneAnimalRemovals,
  REMOVALS_KEPT_MS,
  updateAnimal,
} from './service.ts';

/** The answer, its animals typed (the schema refers to Animal by name). */
type AnimalChanges = Omit<ChangesSchema, 'data'> & { data: Animal[] };

forEachEngine('animal changes', (t) => {
  test('without since: every animal, oldest change first, paged by next_after with nothing skipped or repeated', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await make.animal(t(), acct.live_key, farm, { tag: `C${i}` })).id);
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const query: string = `limit=2${after ? `&after=${after}` : ''}`;
      const res = await t().request<AnimalChanges>('GET', `/v1/farms/${farm}/animals/changes?${query}`, {
        key: acct.live_key,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.removed, []);
      assert.match(res.body.next_since, /^\d+$/);
      seen.push(...res.body.data.map((a) => a.id));
      after = res.body.next_after;
      assert.equal(res.body.has_more, after !== null);
      pages++;
    } while (after);
    assert.equal(pages, 3);
    assert.deepEqual([...seen].sort(), [...made].sort());
    assert.equal(new Set(seen).size, 5);
  });

  test('with since: only the animals added, changed or cleared from a deleted group since, and the deleted ids', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const day = 86_400_000;
    const start = Date.now() - 10 * day;
    const group = await make.group(t(), acct.live_key, farm, { name: 'Heifers', species: 'cattle' });
    const kept = await createAnimal(db, scope, farm, { species: 'cattle', tag: 'K1' }, start);
    const edited = await createAnimal(db, scope, farm, { species: 'cattle', tag: 'E1' }, start);
    const grouped = await createAnimal(
      db,
      scope,
      farm,
      { species: 'cattle', tag: 'G1', group_id: group.id },
      start,
    );
    const gone = await createAnimal(db, scope, farm, { species: 'cattle', tag: 'D1' }, start);
    const first = await animalChanges(db, scope, farm, {}, start + day);
    assert.equal(first.data.length, 4);
    assert.equal(first.next_since, String(start + day - CHANGES_OVERLAP_MS));

    await updateAnimal(db, scope, edited.id, { notes: 'lame front left' }, start + 2 * day);
    const added = await createAnimal(db, scope, farm, { species: 'cattle', tag: 'N1' }, start + 2 * day);
    const del = await t().request('DELETE', `/v1/groups/${group.id}`, { key: acct.live_key });
    assert.equal(del.status, 200);
    const removed = await t().request('DELETE', `/v1/animals/${gone.id}`, { key: acct.live_key });
    assert.equal(removed.status, 200);

    const res = await t().request<AnimalChanges>(
      'GET',
      `/v1/farms/${farm}/animals/changes?since=${first.next_since}`,
      { key: acct.live_key },
    );
    assert.equal(res.status, 200);
    const ids = res.body.data.map((a) => a.id).sort();
    assert.deepEqual(ids, [edited.id, grouped.id, added.id].sort());
    assert.ok(!ids.includes(kept.id), 'an unchanged animal is not sent again');
    assert.equal(res.body.data.find((a) => a.id === edited.id)?.notes, 'lame front left');
    assert.equal(res.body.data.find((a) => a.id === grouped.id)?.group_id, null);
    assert.deepEqual(res.body.removed, [gone.id]);
    assert.equal(res.body.full, false, 'only what changed');
  });

  test('deleted ids are kept 90 days: an older since gets the whole herd, marked full; the daily job forgets them', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const day = 86_400_000;
    const now = Date.now();
    const herd = [];
    for (const tag of ['A1', 'A2', 'A3']) {
      herd.push(await createAnimal(db, scope, farm, { species: 'sheep', tag }, now - 200 * day));
    }
    const gone = await make.animal(t(), acct.live_key, farm, { tag: 'OLD' });
    await db
      .insertInto('animal_removals')
      .values([
        { farm_id: farm, animal_id: 'ani_long_gone', removed_at: now - REMOVALS_KEPT_MS - day },
        { farm_id: farm, animal_id: gone.id, removed_at: now - 10 * day },
      ])
      .execute();

    const recent = await animalChanges(db, scope, farm, { since: String(now - 20 * day) }, now);
    assert.equal(recent.full, false);
    assert.deepEqual(recent.removed, [gone.id], 'a deletion within 90 days is listed');
    const old = await animalChanges(
      db,
      scope,
      farm,
      { since: String(now - REMOVALS_KEPT_MS - 2 * day) },
      now,
    );
    assert.equal(old.full, true, 'too old for the deletions kept: the whole herd');
    assert.deepEqual(old.removed, []);
    assert.deepEqual(
      (old.data as Animal[]).map((a) => a.id).sort(),
      [...herd.map((a) => a.id), gone.id].sort(),
      'every animal, unchanged ones too',
    );
    const fresh = await t().request<AnimalChanges>('GET', `/v1/farms/${farm}/animals/changes`, {
      key: acct.live_key,
    });
    assert.equal(fresh.body.full, true, 'no since is the whole herd too');

    assert.ok((await pruneAnimalRemovals(db, now)) >= 1);
    const left = await db
      .selectFrom('animal_removals')
      .select('animal_id')
      .where('farm_id', '=', farm)
      .execute();
    assert.deepEqual(
      left.map((r) => r.animal_id),
      [gone.id],
      'only the one older than 90 days is forgotten',
    );
  });

  test('an animal moved by a move event (grazing) is in the next refresh, in its new paddock', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const paddock = await make.paddock(t(), acct.live_key, farm, { name: 'Creek' });
    const cow = await make.animal(t(), acct.live_key, farm, { tag: 'M1' });
    const first = await t().request<AnimalChanges>('GET', `/v1/farms/${farm}/animals/changes`, {
      key: acct.live_key,
    });
    const since = String(Number(first.body.next_since) + CHANGES_OVERLAP_MS);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const moved = await t().request('POST', `/v1/farms/${farm}/events`, {
      key: acct.live_key,
      body: { type: 'move', subject_id: cow.id, data: { to_paddock_id: paddock.id } },
    });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    const next = await t().request<AnimalChanges>('GET', `/v1/farms/${farm}/animals/changes?since=${since}`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      next.body.data.map((a) => [a.id, a.paddock_id]),
      [[cow.id, paddock.id]],
    );
  });

  test('a bad cursor is 400 naming it; another account’s farm is 404', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const bad = await t().request<ErrorReply>('GET', `/v1/farms/${farm}/animals/changes?since=yesterday`, {
      key: acct.live_key,
    });
    expectError(bad, 400, 'invalid_request');
    assert.match(bad.body.error.param ?? '', /since/);
    const other = await t().account('Elsewhere');
    const hidden = await t().request<ErrorReply>('GET', `/v1/farms/${farm}/animals/changes`, {
      key: other.live_key,
    });
    expectError(hidden, 404, 'not_found');
  });
});
