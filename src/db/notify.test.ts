/**
 * The bus on PostgreSQL (src/db/notify.ts): a transaction's notifications are sent after it commits, in a
 * short transaction of their own, batched across the process's commits; none for a transaction rolled back;
 * a listener never hears of a change it cannot yet read.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPgDatabase, ENGINES, waitFor } from '../../test/engines.ts';
import { type Database, openDatabase } from './database.ts';
import { BUS_CHANNELS, type Bus, notify, openBus } from './notify.ts';
import { inTransaction } from './transaction.ts';

const skip = ENGINES.includes('postgres') ? false : 'PostgreSQL is not among FARMSTEAD_TEST_ENGINES';

let made: { url: string; drop(): Promise<void> };
let database: Database;
let bus: Bus;
const heard: string[] = [];

before(async () => {
  if (skip) return;
  made = await createPgDatabase({ migrated: true });
  database = await openDatabase({ databaseUrl: made.url, dataDir: '', pgPoolSize: 8 }, { migrate: false });
  bus = openBus({ databaseUrl: made.url });
  await bus.listen(BUS_CHANNELS.farmOutbox, (payload) => heard.push(payload));
});

after(async () => {
  if (skip) return;
  await bus.close();
  await database.close();
  await made.drop();
});

test('sent after the commit, and only then: the change is readable when the listener hears of it', {
  skip,
}, async () => {
  const { db } = database;
  const readable: boolean[] = [];
  const listener = openBus({ databaseUrl: made.url });
  await listener.listen(BUS_CHANNELS.farmOutbox, (payload) => {
    if (payload !== 'farm_after_commit') return;
    void db
      .selectFrom('accounts')
      .select('id')
      .where('id', '=', 'acc_after_commit')
      .executeTakeFirst()
      .then((row) => readable.push(Boolean(row)));
  });
  try {
    // Which statements named pg_notify, and whether the transaction was still open when each ran.
    const notifies: Array<'inside' | 'after'> = [];
    let open = false;
    const watched = db.withPlugin({
      transformQuery(args) {
        if (JSON.stringify(args.node).includes('pg_notify')) notifies.push(open ? 'inside' : 'after');
        return args.node;
      },
      async transformResult(args) {
        return args.result;
      },
    });
    await inTransaction(watched, async (trx) => {
      open = true;
      await notify(trx, BUS_CHANNELS.farmOutbox, 'farm_after_commit');
      await trx
        .insertInto('accounts')
        .values({ id: 'acc_after_commit', name: 'Bus', created_at: Date.now() })
        .execute();
      open = false;
    });
    await waitFor('the listener to read the account', () => readable.length > 0);
    assert.deepEqual(readable, [true]);
    assert.deepEqual(notifies, ['after']);
  } finally {
    await listener.close();
  }
});

test('a transaction rolled back notifies nothing; one committed after it is heard', { skip }, async () => {
  const { db } = database;
  await assert.rejects(
    inTransaction(db, async (trx) => {
      await notify(trx, BUS_CHANNELS.farmOutbox, 'farm_rolled_back');
      throw new Error('no');
    }),
    /no/,
  );
  await inTransaction(db, (trx) => notify(trx, BUS_CHANNELS.farmOutbox, 'farm_sentinel'));
  // Notifications arrive in commit order: once the later one is heard, the earlier would have been.
  await waitFor('the sentinel', () => heard.includes('farm_sentinel'));
  assert.equal(heard.includes('farm_rolled_back'), false);
});

test('many commits at once: every hint is heard', { skip }, async () => {
  const { db } = database;
  heard.length = 0;
  const farms = Array.from({ length: 40 }, (_, i) => `farm_batch_${i}`);
  await Promise.all(
    farms.map((farm) => inTransaction(db, (trx) => notify(trx, BUS_CHANNELS.farmOutbox, farm))),
  );
  // Commits that end while a batch is being sent wait for the next one: none is dropped between them.
  await waitFor('all forty farms', () => farms.every((farm) => heard.includes(farm)));
});
