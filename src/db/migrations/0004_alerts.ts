import { type Kysely, sql } from 'kysely';
import { ACTIVE_ALERT_PREDICATE } from '../tables/alerts.ts';
import { T } from './helpers.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', T.id, (c) => c.primaryKey())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('severity', T.text, (c) => c.notNull())
    .addColumn('severity_rank', T.int, (c) => c.notNull())
    .addColumn('title', T.text, (c) => c.notNull())
    .addColumn('reason', T.text, (c) => c.notNull())
    .addColumn('rule', T.text, (c) => c.notNull())
    .addColumn('subject_type', T.text, (c) => c.notNull())
    .addColumn('subject_id', T.text, (c) => c.notNull())
    .addColumn('status', T.text, (c) => c.notNull())
    .addColumn('created_at', T.time, (c) => c.notNull())
    .addColumn('updated_at', T.time, (c) => c.notNull())
    .addColumn('acknowledged_at', T.time)
    .addColumn('resolved_at', T.time)
    .execute();
  // At most one active alert per farm, rule and subject, enforced by the database so that two
  // processes evaluating reports at the same time cannot both open one.
  await sql`create unique index alerts_one_active on alerts (farm_id, rule, subject_type, subject_id) where ${sql.raw(ACTIVE_ALERT_PREDICATE)}`.execute(
    db,
  );
  // Lists: most urgent first, then newest; per status, and across all statuses.
  await db.schema
    .createIndex('alerts_farm_status_order')
    .on('alerts')
    .columns(['farm_id', 'status', 'severity_rank', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('alerts_farm_order')
    .on('alerts')
    .columns(['farm_id', 'severity_rank', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('alert_watermarks')
    .addColumn('device_id', T.id, (c) => c.notNull())
    .addColumn('metric', T.text, (c) => c.notNull())
    .addColumn('farm_id', T.id, (c) => c.notNull().references('farms.id').onDelete('cascade'))
    .addColumn('at', T.time)
    .addPrimaryKeyConstraint('alert_watermarks_pk', ['device_id', 'metric'])
    .execute();
  await db.schema.createIndex('alert_watermarks_farm').on('alert_watermarks').column('farm_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alert_watermarks').ifExists().execute();
  await db.schema.dropTable('alerts').ifExists().execute();
}
