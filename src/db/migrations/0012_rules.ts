/**
 * A farm's own alert rules beside the defaults, and the per (rule, device) start of a sustained
 * breach that `for_s` rules wait on. The breach row sits beside the watermark and is written under
 * the same lock, so separate reports, late reports and several processes all see one window.
 */
import type { Kysely } from 'kysely';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('rules')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('name', T.text, (c) => c.notNull())
    .addColumn('kind', T.text, (c) => c.notNull())
    .addColumn('metric', T.text, (c) => c.notNull())
    .addColumn('direction', T.text, (c) => c.notNull())
    .addColumn('watch', T.number, (c) => c.notNull())
    .addColumn('urgent', T.number)
    .addColumn('clear', T.number, (c) => c.notNull())
    .addColumn('device_type', T.text)
    .addColumn('device_id', T.id)
    .addColumn('group_id', T.id)
    .addColumn('for_s', T.int)
    // Rate rules: the signed change within window_s (watch, clear and direction derive from it).
    .addColumn('change', T.number)
    .addColumn('window_s', T.int)
    .addColumn('enabled', T.bool, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('updated_at', T.time, (c) => c.notNull())
    .execute();
  // Names are unique on a farm: alerts carry the rule's name.
  await db.schema.createIndex('rules_farm_name').on('rules').columns(['farm_id', 'name']).unique().execute();

  await db.schema
    .createTable('alert_breaches')
    .addColumn('device_id', T.id, (c) => c.notNull())
    .addColumn('rule', T.text, (c) => c.notNull())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    /** Reading time of the first reading of the unbroken run at or beyond the watch line. */
    .addColumn('since', T.time, (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_breaches_pk', ['device_id', 'rule'])
    .execute();
  await db.schema.createIndex('alert_breaches_farm').on('alert_breaches').column('farm_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_breaches').ifExists().execute();
  await db.schema.dropTable('rules').ifExists().execute();
}
