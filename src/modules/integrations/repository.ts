import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import type {
  IntegrationDevicesTable,
  IntegrationDownlinksTable,
  IntegrationsTable,
  IntegrationUnmatchedTable,
} from '../../db/tables/integrations.ts';
import type { CommandRow } from '../commands/repository.ts';

export type IntegrationRow = Selectable<IntegrationsTable>;
export type LinkRow = Selectable<IntegrationDevicesTable>;
export type UnmatchedRow = Selectable<IntegrationUnmatchedTable>;
export type DownlinkRow = Selectable<IntegrationDownlinksTable>;

// ---- integrations

export async function insertIntegration(db: Db, row: IntegrationRow): Promise<void> {
  await db.insertInto('integrations').values(row).execute();
}

export function integrationsOnFarm(db: Db, farmId: string) {
  return db.selectFrom('integrations').selectAll().where('farm_id', '=', farmId);
}

export async function integrationById(db: Db, id: string): Promise<IntegrationRow | undefined> {
  const [row] = await selectIntegration(db, { id });
  return row;
}

// The statements every uplink runs are built once (db/prepared.ts): Kysely's building costs more than
// SQLite's running them.
const selectIntegration = prepared((db, q: { id: string }) =>
  db.selectFrom('integrations').selectAll().where('id', '=', q.id),
);

export async function updateIntegrationRow(
  db: Db,
  id: string,
  patch: Updateable<IntegrationsTable>,
): Promise<void> {
  await db.updateTable('integrations').set(patch).where('id', '=', id).execute();
}

export async function deleteIntegrationRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('integrations').where('id', '=', id).execute();
}

// ---- devices carried by an integration

/** The device an integration carries under this DevEUI, with the device's serial and farm. */
export async function linkByEui(db: Db, integrationId: string, devEui: string) {
  const [row] = await selectLinkByEui(db, { integrationId, devEui });
  return row;
}

const selectLinkByEui = prepared((db, q: { integrationId: string; devEui: string }) =>
  db
    .selectFrom('integration_devices as l')
    .innerJoin('devices as d', 'd.id', 'l.device_id')
    .selectAll('l')
    .select(['d.serial as serial', 'd.name as device_name'])
    .where('l.integration_id', '=', q.integrationId)
    .where('l.dev_eui', '=', q.devEui),
);

/**
 * The devices an integration carries under the server's own device id (The Things Stack's device_id, learnt
 * from uplinks): at most two, so a caller can tell one from several.
 */
export async function linksByRemoteId(db: Db, integrationId: string, remoteId: string) {
  return db
    .selectFrom('integration_devices')
    .select('device_id')
    .where('integration_id', '=', integrationId)
    .where('remote_id', '=', remoteId)
    .limit(2)
    .execute();
}

export async function linkOfDevice(db: Db, deviceId: string): Promise<LinkRow | undefined> {
  return db
    .selectFrom('integration_devices')
    .selectAll()
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
}

/** The devices an integration carries (at most 1,000), with their names, in the order they were linked. */
export async function linksOfIntegration(db: Db, integrationId: string) {
  return db
    .selectFrom('integration_devices as l')
    .innerJoin('devices as d', 'd.id', 'l.device_id')
    .selectAll('l')
    .select('d.name as device_name')
    .where('l.integration_id', '=', integrationId)
    .orderBy('l.created_at')
    .orderBy('l.device_id')
    .limit(1_000)
    .execute();
}

/** A device of the farm whose serial is this DevEUI (`eui:<hex>` or the bare hex, any case). */
export async function deviceWithEui(db: Db, farmId: string, devEui: string) {
  return db
    .selectFrom('devices')
    .select(['id', 'name', 'type'])
    .where('farm_id', '=', farmId)
    .where(sql<string>`lower(serial)`, 'in', [`eui:${devEui}`, devEui])
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

/** Links a device (moving it from any other integration or DevEUI it had). */
export async function saveLink(db: Db, row: Insertable<IntegrationDevicesTable>): Promise<void> {
  const { device_id: _id, created_at: _c, ...update } = row;
  await db
    .insertInto('integration_devices')
    .values(row)
    .onConflict((oc) => oc.column('device_id').doUpdateSet(update))
    .execute();
}

/**
 * Links a device to an integration unless the device or the DevEUI is linked already, as when another uplink
 * of the same DevEUI linked it a moment before (on PostgreSQL this waits for that uplink's transaction). An
 * upsert on the device would refuse that case: the DevEUI's own unique index is not its conflict target.
 * True when this call made the link.
 */
export async function linkUnlessLinked(db: Db, row: Insertable<IntegrationDevicesTable>): Promise<boolean> {
  const made = await db
    .insertInto('integration_devices')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .returning('device_id')
    .execute();
  return made.length > 0;
}

export async function deleteLink(db: Db, deviceId: string): Promise<void> {
  await db.deleteFrom('integration_devices').where('device_id', '=', deviceId).execute();
}

export async function recordLastUplink(
  db: Db,
  deviceId: string,
  patch: { last_uplink: string; last_uplink_at: number; remote_id?: string },
): Promise<void> {
  await db
    .updateTable('integration_devices')
    .set(patch)
    .where('device_id', '=', deviceId)
    // A late duplicate of an older uplink does not replace a newer one.
    .where((eb) =>
      eb.or([eb('last_uplink_at', 'is', null), eb('last_uplink_at', '<=', patch.last_uplink_at)]),
    )
    .execute();
}

// ---- unmatched DevEUIs

export async function upsertUnmatched(db: Db, row: UnmatchedRow): Promise<void> {
  await db
    .insertInto('integration_unmatched')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['integration_id', 'dev_eui']).doUpdateSet((eb) => {
        // An uplink handed over late (older than the newest seen) counts, but shows nothing of its own.
        const newest = sql<boolean>`integration_unmatched.last_seen_at <= ${row.last_seen_at}`;
        const newer = <T>(value: T, column: 'device_name' | 'remote_id' | 'profile' | 'decoded' | 'f_port') =>
          sql<T>`case when ${newest} then ${value} else ${eb.ref(`integration_unmatched.${column}`)} end`;
        return {
          device_name: newer(row.device_name, 'device_name'),
          remote_id: newer(row.remote_id, 'remote_id'),
          profile: newer(row.profile, 'profile'),
          // A join carries no payload: the last decoded fields stay.
          decoded:
            row.decoded === null ? eb.ref('integration_unmatched.decoded') : newer(row.decoded, 'decoded'),
          f_port: row.f_port === null ? eb.ref('integration_unmatched.f_port') : newer(row.f_port, 'f_port'),
          uplinks: sql<number>`integration_unmatched.uplinks + ${row.uplinks}`,
          first_seen_at: sql<number>`case when integration_unmatched.first_seen_at > ${row.first_seen_at} then ${row.first_seen_at} else integration_unmatched.first_seen_at end`,
          last_seen_at: sql<number>`case when ${newest} then ${row.last_seen_at} else integration_unmatched.last_seen_at end`,
        };
      }),
    )
    .execute();
}

export function unmatchedOf(db: Db, integrationId: string) {
  return db
    .selectFrom('integration_unmatched')
    .selectAll()
    .where('integration_id', '=', integrationId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('dev_eui')
    .limit(500)
    .execute();
}

export async function takeUnmatched(db: Db, integrationId: string, devEui: string) {
  return db
    .deleteFrom('integration_unmatched')
    .where('integration_id', '=', integrationId)
    .where('dev_eui', '=', devEui)
    .returningAll()
    .executeTakeFirst();
}

// ---- uplinks already stored

/**
 * Claims an uplink's key (the integration, the device's DevEUI and the server's id for the uplink); false
 * when it was stored before. Inside the uplink's transaction: a concurrent claim of the same key (another
 * process) waits for this one's commit and then finds it taken.
 */
export async function claimUplink(
  db: Db,
  uplink: { integrationId: string; devEui: string; key: string },
  now: number,
): Promise<boolean> {
  const rows = await insertUplinkKey(db, { ...uplink, now });
  return rows.length > 0;
}

const insertUplinkKey = prepared(
  (db, q: { integrationId: string; devEui: string; key: string; now: number }) =>
    db
      .insertInto('integration_uplinks')
      .values({ integration_id: q.integrationId, dev_eui: q.devEui, dedup_key: q.key, received_at: q.now })
      .onConflict((oc) => oc.columns(['integration_id', 'dev_eui', 'dedup_key']).doNothing())
      .returning('dedup_key'),
);

/** Forgets the keys of uplinks received before `before` (a retry that late would be stored again). */
export async function pruneUplinkKeys(db: Db, before: number): Promise<number> {
  const result = await db
    .deleteFrom('integration_uplinks')
    .where('received_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

// ---- downlinks

/** Commands of devices an integration carries that are still open and have no downlink yet. */
export async function commandsWithoutDownlink(db: Db, now: number, limit: number) {
  return db
    .selectFrom('commands as c')
    .innerJoin('integration_devices as l', 'l.device_id', 'c.device_id')
    .leftJoin('integration_downlinks as d', 'd.command_id', 'c.id')
    .select(['c.id as command_id', 'c.device_id', 'c.farm_id', 'l.integration_id'])
    .where('d.command_id', 'is', null)
    .where('c.status', 'in', ['queued', 'delivered'])
    .where('c.expires_at', '>', now)
    .orderBy('c.created_at')
    .limit(limit)
    .execute();
}

export async function insertDownlinks(db: Db, rows: DownlinkRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('integration_downlinks')
    .values(rows)
    .onConflict((oc) => oc.column('command_id').doNothing())
    .execute();
}

/** What sending one downlink needs: the command, the device's link, the integration. */
export async function downlinkContext(db: Db, commandId: string) {
  return db
    .selectFrom('integration_downlinks as dl')
    .innerJoin('commands as c', 'c.id', 'dl.command_id')
    .innerJoin('integrations as i', 'i.id', 'dl.integration_id')
    .leftJoin('integration_devices as l', 'l.device_id', 'dl.device_id')
    .leftJoin('devices as d', 'd.id', 'dl.device_id')
    .select([
      'd.name as device_name',
      'c.command',
      'c.params',
      'c.status as command_status',
      'c.expires_at',
      'i.type',
      'i.api_url',
      'i.api_key',
      'i.application_id',
      'i.webhook_id',
      'i.defaults',
      'l.dev_eui',
      'l.remote_id',
      'l.preset',
      'l.encoder',
      'l.last_uplink',
      'l.integration_id as link_integration_id',
    ])
    .where('dl.command_id', '=', commandId)
    .executeTakeFirst();
}

export async function updateDownlink(
  db: Db,
  commandId: string,
  patch: Updateable<IntegrationDownlinksTable>,
): Promise<void> {
  await db.updateTable('integration_downlinks').set(patch).where('command_id', '=', commandId).execute();
}

/**
 * The downlink a network server's event is about: by our command id (The Things Stack's correlation ids,
 * unique, so no device is needed), else, when the device is known, by ChirpStack's queue item id, else as
 * its oldest downlink the server accepted and has not settled — only among those the server gave no id of
 * their own, and only when the event names no id we do not know. An event naming another downlink (one
 * queued in the network server's console, or a copy of ours sent again after a timeout) settles nothing.
 */
export async function downlinkForEvent(
  db: Db,
  integrationId: string,
  keys: { deviceId: string | null; queueItemId: string | null; commandIds: string[]; namesOther?: boolean },
): Promise<DownlinkRow | undefined> {
  const base = db.selectFrom('integration_downlinks').selectAll().where('integration_id', '=', integrationId);
  if (keys.commandIds.length > 0) {
    const row = await base.where('command_id', 'in', keys.commandIds).executeTakeFirst();
    if (row) return row;
  }
  if (!keys.deviceId) return undefined;
  // ChirpStack's events always name the device: its index finds the queue item.
  const ofDevice = base.where('device_id', '=', keys.deviceId);
  if (keys.queueItemId) {
    const row = await ofDevice.where('remote_id', '=', keys.queueItemId).executeTakeFirst();
    if (row) return row;
  }
  let oldest = ofDevice.where('status', '=', 'sent');
  // A queue item id we hold on none of ours is another downlink's, unless ours has no id to compare.
  if (keys.queueItemId) oldest = oldest.where('remote_id', 'is', null);
  else if (keys.commandIds.length > 0 || keys.namesOther) return undefined;
  return oldest.orderBy('sent_at').orderBy('command_id').executeTakeFirst();
}

// ---- the commands downlinks carry

const OPEN = ['queued', 'delivered'] as const;

/**
 * The network server took the command: `delivered`. Its redelivery time is its expiry, so device reports
 * (the uplinks) do not hand it out again: the network server owns delivery from here.
 */
export async function markCommandDelivered(db: Db, commandId: string, now: number) {
  return db
    .updateTable('commands')
    .set({
      status: 'delivered',
      delivered_at: sql<number>`coalesce(delivered_at, ${now})`,
      delivery_attempts: sql<number>`delivery_attempts + 1`,
      redeliver_at: sql<number>`expires_at`,
    })
    .where('id', '=', commandId)
    .where('status', 'in', [...OPEN])
    .returningAll()
    .executeTakeFirst();
}

/** Ends a command still open: `done` or `failed`, with the result. Undefined when it had ended already. */
export async function finishCommand(
  db: Db,
  commandId: string,
  outcome: { status: 'done' | 'failed'; result: string; now: number },
): Promise<CommandRow | undefined> {
  return db
    .updateTable('commands')
    .set({ status: outcome.status, result: outcome.result, done_at: outcome.now })
    .where('id', '=', commandId)
    .where('status', 'in', [...OPEN])
    .returningAll()
    .executeTakeFirst();
}
