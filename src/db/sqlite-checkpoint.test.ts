/**
 * The server's SQLite checkpoints (src/db/sqlite-checkpoint.ts): committed pages reach the database file
 * from the worker thread while the writer's own automatic checkpoint is only a distant bound.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { FALLBACK_AUTOCHECKPOINT_PAGES, startBackgroundCheckpoints } from './sqlite-checkpoint.ts';

test('a worker thread checkpoints what the writer commits; the writer only keeps a bound', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-checkpoint-'));
  const file = path.join(dir, 'farmstead.db');
  const writer = new DatabaseSync(file);
  writer.exec('PRAGMA journal_mode = WAL');
  writer.exec('create table t (id integer primary key, body text)');
  const checkpoints = startBackgroundCheckpoints(writer, file, 10);
  try {
    assert.equal(
      (writer.prepare('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number })
        .wal_autocheckpoint,
      FALLBACK_AUTOCHECKPOINT_PAGES,
    );
    const before = statSync(file).size;
    const insert = writer.prepare('insert into t (body) values (?)');
    writer.exec('begin');
    for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
    writer.exec('commit');
    assert.equal(statSync(file).size, before, 'the commit itself wrote only the WAL');
    const deadline = Date.now() + 5000;
    while (statSync(file).size === before) {
      assert.ok(Date.now() < deadline, 'no checkpoint reached the database file within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const copied = new DatabaseSync(file, { readOnly: true });
    assert.equal((copied.prepare('select count(*) as n from t').get() as { n: number }).n, 2000);
    copied.close();
  } finally {
    await checkpoints.stop();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
