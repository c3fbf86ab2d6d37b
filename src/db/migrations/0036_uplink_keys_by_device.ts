/**
 * An uplink's de-duplication key is the integration, the device (its DevEUI) and the network server's id
 * for the uplink: ChirpStack's deduplicationId is only unique per device, so keyed by the integration alone
 * an uplink of another device carrying the same id was dropped as a duplicate (issue 44). The kept keys
 * (seven days of them, `integrations.prune`) cannot be told apart by device, so they are dropped: an uplink
 * a network server retries across the upgrade is stored again, once.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integration_uplinks').execute();
  await db.schema
    .createTable('integration_uplinks')
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('dev_eui', T.text, (c) => c.notNull())
    .addColumn('dedup_key', T.text, (c) => c.notNull())
    .addColumn('received_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_uplinks_pk', ['integration_id', 'dev_eui', 'dedup_key'])
    .execute();
  await receivedIndex(db);
}

/** Pruning's index (integrations.prune deletes by age). */
async function receivedIndex(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('integration_uplinks_received')
    .on('integration_uplinks')
    .column('received_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('integration_uplinks').execute();
  await db.schema
    .createTable('integration_uplinks')
    .addColumn('integration_id', T.id, (c) => c.notNull().references('integrations.id').onDelete('cascade'))
    .addColumn('dedup_key', T.text, (c) => c.notNull())
    .addColumn('received_at', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('integration_uplinks_pk', ['integration_id', 'dedup_key'])
    .execute();
  await receivedIndex(db);
}
