import { type ExpressionBuilder, type RawBuilder, type Selectable, sql } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import { prepared } from '../../db/prepared.ts';
import type { DB, Db } from '../../db/schema.ts';
import type { CommandsTable } from '../../db/tables/devices.ts';
import {
  type CommandAnswerStatus,
  type CommandStatus,
  OPEN_COMMAND_STATUSES,
} from '../../domain/statuses.ts';
import { parseJson } from '../../lib/json.ts';
import { toIso } from '../../lib/time.ts';
import type { Command } from './schemas.ts';

export type CommandRow = Selectable<CommandsTable>;

export function toCommand(row: CommandRow): Command {
  return {
    id: row.id,
    farm_id: row.farm_id,
    device_id: row.device_id,
    command: row.command,
    params: parseJson<Record<string, unknown>>(row.params, {}),
    status: row.status,
    result: parseJson<Record<string, unknown> | null>(row.result, null),
    created_at: toIso(row.created_at),
    delivered_at: toIso(row.delivered_at),
    done_at: toIso(row.done_at),
    expires_at: toIso(row.expires_at),
    delivery_attempts: row.delivery_attempts,
    redeliver_after_s: row.redeliver_after_s,
  };
}

/** Oldest first, the order a device should carry commands out in. */
export function byCreation(a: CommandRow, b: CommandRow): number {
  return a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export async function insertCommand(db: Db, row: CommandRow): Promise<void> {
  await db.insertInto('commands').values(row).execute();
}

/** A device's commands, newest first, one page. */
export async function commandPage(
  db: Db,
  deviceId: string,
  page: PageRequest,
  filters: { status?: CommandStatus | undefined },
): Promise<Page<Command>> {
  let query = db.selectFrom('commands').selectAll().where('device_id', '=', deviceId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  return fetchPage(query, page, toCommand);
}

/** Marks the device's queued, unexpired commands delivered and returns them (one UPDATE … RETURNING). */
/**
 * Hands a device its commands: every queued one, and every delivered one whose redelivery time has come
 * (or, with `everyOpen`, every unanswered one: a device that connects afresh gets them all). Each is
 * marked delivered (`delivered_at` keeps the first hand-out) and its next redelivery time set.
 */
export async function handOutCommands(
  db: Db,
  deviceId: string,
  now: number,
  options: { everyOpen?: boolean } = {},
): Promise<CommandRow[]> {
  return updateHandedOut(db, { deviceId, now, everyOpen: options.everyOpen === true });
}

/** Built once per engine for each of the two cases (every open command, or those due). */
const updateHandedOut = prepared(handOutStatement);

/**
 * The hand-out as a statement (PostgreSQL ingest hands out inside its report statement instead, with
 * handOutToEachStatement: ingest/report-statement.ts).
 */
export function handOutStatement(db: Db, q: { deviceId: string; now: number; everyOpen: boolean }) {
  return handOut(db, q.deviceId, sql<number>`${q.now}`, q.everyOpen).returningAll();
}

/**
 * The hand-out for a group of reports (PostgreSQL ingest's batched report statement): the commands due to
 * every device of the statement's `d` rows, each at its own report's time (`d.batch_now`).
 */
export function handOutToEachStatement(db: Db) {
  const now = sql<number>`d.batch_now`;
  return handOut(db, sql<string>`d.id`, now, false)
    .from(sql<{ id: string; batch_now: number }>`d`.as('d'))
    .returningAll('commands');
}

function handOut(db: Db, deviceId: string | RawBuilder<string>, now: RawBuilder<number>, everyOpen: boolean) {
  return db
    .updateTable('commands')
    .set({
      status: 'delivered',
      delivered_at: sql<number>`coalesce(delivered_at, ${now})`,
      delivery_attempts: sql<number>`delivery_attempts + 1`,
      // The cast keeps PostgreSQL from typing the parameter as a 32-bit integer.
      redeliver_at: sql<number>`cast(${now} as bigint) + redeliver_after_s * 1000`,
    })
    .where('device_id', '=', deviceId)
    .where((eb) =>
      everyOpen
        ? eb.and([eb('expires_at', '>', now), eb('status', 'in', OPEN_COMMAND_STATUSES)])
        : isDue(eb, now),
    );
}

/**
 * A command due to its device at `now`: unexpired, and queued or delivered and due again. What a report or
 * a poll hands out (handOut), what devicesWithDueCommands looks for, and what SQLite ingest's device
 * update asks whether the device has any of (ingest/repository.ts).
 */
export function isDue(eb: ExpressionBuilder<DB, 'commands'>, now: number | RawBuilder<number>) {
  return eb.and([
    eb('commands.expires_at', '>', now),
    eb.or([
      eb('commands.status', '=', 'queued'),
      eb.and([eb('commands.status', '=', 'delivered'), eb('commands.redeliver_at', '<=', now)]),
    ]),
  ]);
}

/** Stores a device's answer if the command is its own and delivered; undefined otherwise. */
export async function finishDelivered(
  db: Db,
  deviceId: string,
  commandId: string,
  answer: { status: CommandAnswerStatus; result: string; now: number },
): Promise<CommandRow | undefined> {
  return db
    .updateTable('commands')
    .set({ status: answer.status, result: answer.result, done_at: answer.now })
    .where('id', '=', commandId)
    .where('device_id', '=', deviceId)
    .where('status', '=', 'delivered')
    .returningAll()
    .executeTakeFirst();
}

/** The status of one of the device's commands, or undefined when it has none with that id. */
export async function commandStatusOf(
  db: Db,
  deviceId: string,
  commandId: string,
): Promise<CommandStatus | undefined> {
  const row = await db
    .selectFrom('commands')
    .select(['status'])
    .where('id', '=', commandId)
    .where('device_id', '=', deviceId)
    .executeTakeFirst();
  return row?.status;
}

/**
 * Fails up to `limit` commands still open past their expiry and returns them. The UPDATE re-checks
 * the status, so with several processes a command expires once.
 */
export async function expireDue(db: Db, now: number, limit: number): Promise<CommandRow[]> {
  const due = db
    .selectFrom('commands')
    .select('id')
    .where('status', 'in', OPEN_COMMAND_STATUSES)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit);
  return db
    .updateTable('commands')
    .set({ status: 'failed', result: JSON.stringify({ error: 'expired' }), done_at: now })
    .where('id', 'in', due)
    .where('status', 'in', OPEN_COMMAND_STATUSES)
    .returningAll()
    .execute();
}

/** The newest `perDevice` commands of each device, newest first, keyed by device id. */
export async function recentCommands(
  db: Db,
  deviceIds: readonly string[],
  perDevice = 10,
): Promise<Record<string, Command[]>> {
  const out: Record<string, Command[]> = {};
  for (const id of deviceIds) out[id] = [];
  if (deviceIds.length === 0) return out;
  const ranked = db
    .selectFrom('commands')
    .selectAll()
    .select(
      sql<number>`row_number() over (partition by device_id order by created_at desc, id desc)`.as('rank'),
    )
    .where('device_id', 'in', [...new Set(deviceIds)])
    .as('ranked');
  const rows = await db
    .selectFrom(ranked)
    .selectAll()
    .where('rank', '<=', perDevice)
    .orderBy('device_id')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  for (const { rank: _rank, ...row } of rows) out[row.device_id]?.push(toCommand(row));
  return out;
}

/**
 * Locks a device row (a no-op update) and returns its stored state, so two simulated commands at once
 * cannot lose each other's change.
 */
export async function lockDeviceState(db: Db, deviceId: string): Promise<string> {
  const locked = await db
    .updateTable('devices')
    .set((eb) => ({ state: eb.ref('state') }))
    .where('id', '=', deviceId)
    .returning('state')
    .executeTakeFirstOrThrow();
  return locked.state;
}

export async function saveDeviceState(db: Db, deviceId: string, state: string): Promise<void> {
  await db.updateTable('devices').set({ state }).where('id', '=', deviceId).execute();
}

/** A poll counts as the device being seen. */
export async function markDeviceSeen(db: Db, deviceId: string, now: number): Promise<void> {
  await db.updateTable('devices').set({ last_seen_at: now }).where('id', '=', deviceId).execute();
}

/** Of these devices, those with commands queued or due again at `now` (and not expired). */
export async function devicesWithDueCommands(
  db: Db,
  deviceIds: readonly string[],
  now: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('commands')
    .select('device_id')
    .distinct()
    .where('device_id', 'in', [...deviceIds])
    .where((eb) => isDue(eb, now))
    .execute();
  return rows.map((r) => r.device_id);
}
