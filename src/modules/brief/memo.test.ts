/**
 * The brief's memo (memo.ts) never serves a brief older than the last committed write: every kind of write
 * the brief reads, made through the API or through another connection (another process, the CLI), shows in
 * the next brief.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine, type TestApp } from '../../../test/harness.ts';
import { dataVersion } from '../../db/data-version.ts';
import { openDatabase } from '../../db/database.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { createTask } from '../tasks/service.ts';
import { BRIEF_REUSE_MS } from './memo.ts';
import { buildBrief } from './service.ts';

type Json = any;

function brief(t: TestApp, key: string, farmId: string): Promise<Json> {
  return make.fetched(t, key, `/v1/farms/${farmId}/brief`);
}

async function send(t: TestApp, key: string, method: string, path: string, body: unknown): Promise<void> {
  const res = await t.request(method, path, { key, body });
  assert.equal(res.status, 200, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
}

forEachEngine('brief memo', (t) => {
  test('each write the brief reads (tasks, readings, alerts, paddocks) shows in the next brief', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { name: 'Fresh Farm' })).id;
    assert.equal((await brief(t(), key, farmId)).counts.tasks_due_today, 0);
    // The same brief again, then a write: the second must not be the remembered one.
    assert.equal((await brief(t(), key, farmId)).counts.tasks_due_today, 0);

    const task = await make.task(t(), key, farmId, { title: 'Check fences', due_at: toIso(Date.now()) });
    assert.equal((await brief(t(), key, farmId)).counts.tasks_due_today, 1);
    await send(t(), key, 'PATCH', `/v1/tasks/${task.id}`, { status: 'done' });
    assert.equal((await brief(t(), key, farmId)).counts.tasks_due_today, 0);

    const house = await make.device(t(), key, farmId, { name: 'House A' });
    const at = toIso(Date.now());
    const reported = await make.report(t(), house.device_key, {
      readings: [{ metric: 'feed.bin_pct', value: 10, at }],
    });
    assert.equal(reported.status, 200);
    const low = await brief(t(), key, farmId);
    assert.equal(low.houses[0].feed.bin_pct, 10);
    assert.equal(low.counts.alerts_watch, 1, 'the feed alert the report opened');
    const alertId = low.alerts[0].id;
    await send(t(), key, 'POST', `/v1/alerts/${alertId}/resolve`, {});
    assert.equal((await brief(t(), key, farmId)).counts.alerts_watch, 0);
    await make.report(t(), house.device_key, {
      readings: [{ metric: 'feed.bin_pct', value: 80, at: toIso(Date.now() + 1000) }],
    });
    assert.equal((await brief(t(), key, farmId)).houses[0].feed.bin_pct, 80);

    const paddock = await make.paddock(t(), key, farmId, {
      name: 'Back Field',
      rest_days_target: 20,
      last_grazed_at: toIso(Date.now() - 40 * DAY_MS),
    });
    assert.equal((await brief(t(), key, farmId)).counts.paddocks_past_rest, 1);
    await send(t(), key, 'PATCH', `/v1/paddocks/${paddock.id}`, { last_grazed_at: toIso(Date.now()) });
    assert.equal((await brief(t(), key, farmId)).counts.paddocks_past_rest, 0);
  });

  test('a write through another connection (another process, the CLI) shows in the next brief', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { name: 'Two Doors Farm' })).id;
    assert.equal((await brief(t(), key, farmId)).counts.tasks_due_today, 0);
    const other = await openDatabase(t().config, { migrate: false });
    try {
      const scope = { accountId: acct.account_id, mode: 'live' as const };
      await createTask(other.db, scope, farmId, { title: 'From elsewhere', due_at: toIso(Date.now()) });
    } finally {
      await other.close();
    }
    const after = await brief(t(), key, farmId);
    assert.equal(after.counts.tasks_due_today, 1);
    assert.equal(after.tasks[0].title, 'From elsewhere');
  });

  test('a built brief is served again only within the second and only while nothing is committed', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { name: 'Crowded Farm' })).id;
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const db = t().database.db;
    const now = Date.now();
    const first = await buildBrief(db, scope, farmId, now);
    if (t().engine === 'sqlite') {
      // PostgreSQL's snapshot moves with any write in the cluster (other tests), so only SQLite can show reuse.
      const again = await buildBrief(db, scope, farmId, now + BRIEF_REUSE_MS - 1);
      assert.equal(again, first, 'the same brief within the second');
    }
    const later = await buildBrief(db, scope, farmId, now + BRIEF_REUSE_MS);
    assert.notEqual(later, first, 'rebuilt once the second is over');
    assert.equal(later.generated_at, toIso(now + BRIEF_REUSE_MS));
    await make.task(t(), key, farmId, { title: 'Check water', due_at: toIso(now) });
    const afterWrite = await buildBrief(db, scope, farmId, now + BRIEF_REUSE_MS);
    assert.equal(
      afterWrite.counts.tasks_due_today,
      1,
      'a commit makes the next brief fresh, inside the second',
    );
  });

  test('the data version moves with every commit, by this connection or another', async () => {
    const db = t().database.db;
    const accountId = (await t().sharedAccount()).account_id;
    const rename = (d: typeof db, name: string) =>
      d.updateTable('accounts').set({ name }).where('id', '=', accountId).execute();
    const before = await dataVersion(db);
    if (t().engine === 'sqlite') {
      // Nothing else writes to this test database; PostgreSQL's snapshot is the whole cluster's.
      assert.equal(await dataVersion(db), before);
    }
    await rename(db, 'Renamed once');
    const afterStatement = await dataVersion(db);
    assert.notEqual(afterStatement, before, 'a statement committed through this database');
    await db.transaction().execute((trx) => rename(trx, 'Renamed twice'));
    const afterOwn = await dataVersion(db);
    assert.notEqual(afterOwn, afterStatement, 'a transaction committed through this database');
    const other = await openDatabase(t().config, { migrate: false });
    try {
      await rename(other.db, 'Renamed elsewhere');
    } finally {
      await other.close();
    }
    assert.notEqual(await dataVersion(db), afterOwn, 'a commit through another connection');
  });
});
