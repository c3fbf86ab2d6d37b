/**
 * Factories for the records tests build on. Each goes through the real API (or, for what only the system
 * creates, such as alerts, writes the row the engine would), asserts it worked, and returns the record typed
 * from its schema. Import them as one namespace so they never clash with a test's own names:
 *
 *   import * as make from '../../../test/factories.ts';
 *   const farm = await make.farm(t(), acct.live_key);
 *   const device = await make.device(t(), acct.live_key, farm.id, { type: 'water' });
 */
import assert from 'node:assert/strict';
import type { Insertable } from 'kysely';
import type { Static } from 'typebox';
import { laneOf, PG_LANES } from '../src/db/group-commit.ts';
import type { AlertsTable } from '../src/db/tables/alerts.ts';
import type { AnimalsTable } from '../src/db/tables/records.ts';
import { newId } from '../src/domain/ids.ts';
import { parseJson } from '../src/lib/json.ts';
import { hashSecret, randomToken } from '../src/lib/secrets.ts';
import type { Animal } from '../src/modules/animals/schemas.ts';
import type { Command } from '../src/modules/commands/schemas.ts';
import type { Device } from '../src/modules/devices/schemas.ts';
import type { Farm } from '../src/modules/farms/schemas.ts';
import type { Group } from '../src/modules/groups/schemas.ts';
import type { IngestResponse } from '../src/modules/ingest/schemas.ts';
import type { Paddock } from '../src/modules/paddocks/schemas.ts';
import type { Task } from '../src/modules/tasks/schemas.ts';
import type { Webhook } from '../src/modules/webhooks/schemas.ts';
import type { Reply, TestApp } from './harness.ts';

type Body = Record<string, unknown>;

/**
 * POSTs `body` with `key` and returns the reply's body, asserting `status` (201 for creates, 200 for actions
 * and ingest). Name `T` from the schema (test/replies.ts) where the test reads the result.
 */
export async function posted<T = unknown>(
  t: TestApp,
  key: string,
  path: string,
  body: unknown,
  status = 201,
): Promise<T> {
  const res = await t.request<T>('POST', path, { key, body });
  assert.equal(res.status, status, `POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** POSTs `body` with `key` and returns the created record (201 asserted, with the reply in the message). */
export function created<T>(t: TestApp, key: string, path: string, body: unknown): Promise<T> {
  return posted<T>(t, key, path, body, 201);
}

/** GETs `path` with `key` and returns the body (200 asserted). */
export async function fetched<T = unknown>(t: TestApp, key: string, path: string): Promise<T> {
  const res = await t.request<T>('GET', path, { key });
  assert.equal(res.status, 200, `GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A farm in the key's mode (a live farm with a live key); named 'Home farm' unless `body` says. */
export function farm(t: TestApp, key: string, body: Body = {}): Promise<Farm> {
  return created<Farm>(t, key, '/v1/farms', { name: 'Home farm', ...body });
}

/** A device (a house unless `body` says), returned with its `device_key`. */
export function device(
  t: TestApp,
  key: string,
  farmId: string,
  body: Body = {},
): Promise<Device & { device_key: string }> {
  return created(t, key, `/v1/farms/${farmId}/devices`, { type: 'house', name: 'House 1', ...body });
}

export function animal(t: TestApp, key: string, farmId: string, body: Body = {}): Promise<Animal> {
  return created<Animal>(t, key, `/v1/farms/${farmId}/animals`, { species: 'cattle', ...body });
}

export function group(t: TestApp, key: string, farmId: string, body: Body = {}): Promise<Group> {
  return created<Group>(t, key, `/v1/farms/${farmId}/groups`, { name: 'Cows', species: 'cattle', ...body });
}

export function paddock(t: TestApp, key: string, farmId: string, body: Body = {}): Promise<Paddock> {
  return created<Paddock>(t, key, `/v1/farms/${farmId}/paddocks`, { name: 'North', ...body });
}

export function task(t: TestApp, key: string, farmId: string, body: Body = {}): Promise<Task> {
  return created<Task>(t, key, `/v1/farms/${farmId}/tasks`, { title: 'Check the water', ...body });
}

/** A webhook subscription (every event unless `body` says), returned with its one-time `secret`. */
export function webhook(
  t: TestApp,
  key: string,
  farmId: string,
  body: Body & { url: string },
): Promise<Webhook & { secret: string }> {
  return created(t, key, `/v1/farms/${farmId}/webhooks`, body);
}

/** What POST /v1/ingest answers (the schema refers to Command by name, so it is spelt out here). */
export type IngestReply = Omit<Static<typeof IngestResponse>, 'commands'> & { commands: Command[] };

/** Sends a device report with the device's key (`/v1/ingest`, or the path given). */
export function report(
  t: TestApp,
  deviceKey: string,
  body: unknown,
  path = '/v1/ingest',
): Promise<Reply<IngestReply>> {
  return t.request<IngestReply>('POST', path, { key: deviceKey, body });
}

/** A device row on the farm, written directly, for tests that should depend only on the devices table. */
export async function deviceRow(t: TestApp, farmId: string): Promise<string> {
  const now = Date.now();
  const id = newId('device', now);
  await t.database.db
    .insertInto('devices')
    .values({
      id,
      farm_id: farmId,
      type: 'water',
      name: 'Trough 1',
      serial: null,
      animal_id: null,
      group_id: null,
      firmware: null,
      lat: null,
      lon: null,
      battery: null,
      state: '{}',
      key_hash: hashSecret(`rd_${randomToken(32)}`),
      key_prefix: 'rd_test',
      last_seen_at: null,
      created_at: now,
    })
    .execute();
  return id;
}

/**
 * An open alert row on the farm, written directly: the alert engine opens alerts, not the API. The
 * defaults are a watch-level ammonia alert on a device.
 */
export async function alertRow(
  t: TestApp,
  farmId: string,
  overrides: Partial<Insertable<AlertsTable>> = {},
): Promise<string> {
  const now = Date.now();
  const id = newId('alert', now);
  await t.database.db
    .insertInto('alerts')
    .values({
      id,
      farm_id: farmId,
      severity: 'watch',
      severity_rank: 1,
      title: 'Ammonia rising',
      reason: 'NH3 20 ppm',
      rule: 'house.ammonia',
      subject_type: 'device',
      subject_id: 'dev_x',
      status: 'open',
      created_at: now,
      updated_at: now,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      ...overrides,
    })
    .execute();
  return id;
}

/**
 * An animal's row as the animals service would store it (a live, active animal with nothing but what is
 * given), for tests that write rows directly: inside a transaction of their own, or with an id they chose.
 */
export function animalRow(
  row: Pick<Insertable<AnimalsTable>, 'id' | 'farm_id' | 'account_id'> & Partial<Insertable<AnimalsTable>>,
): Insertable<AnimalsTable> {
  return {
    mode: 'live',
    species: 'cattle',
    name: null,
    tag: null,
    eid: null,
    sex: null,
    breed: null,
    birth_date: null,
    group_id: null,
    paddock_id: null,
    status: 'active',
    notes: null,
    fields: '{}',
    search_text: '',
    created_at: Date.now(),
    ...row,
    changed_at: row.changed_at ?? row.created_at ?? Date.now(),
  };
}

export interface OutboxEvent {
  type: string;
  data: Record<string, unknown>;
}

/** The outbox events of a farm (what webhooks will deliver), oldest first; only `type` when given. */
export async function outboxEvents(t: TestApp, farmId: string, type?: string): Promise<OutboxEvent[]> {
  let query = t.database.db.selectFrom('outbox').select(['type', 'data']).where('farm_id', '=', farmId);
  if (type) query = query.where('type', '=', type);
  const rows = await query.orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, data: parseJson<Record<string, unknown>>(r.data, {}) }));
}

/** The farm event log rows of a type, oldest first, with parsed data. */
export async function farmEvents(t: TestApp, farmId: string, type: string) {
  const rows = await t.database.db
    .selectFrom('farm_events')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, data: parseJson<Record<string, unknown>>(r.data, {}) }));
}

/** `count` keys (`prefix` and a number) that PostgreSQL group commit puts in one lane, so their units share groups. */
export function keysOfOneLane(prefix: string, count: number): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++)
    if (laneOf(`${prefix}${i}`, PG_LANES) === 0) keys.push(`${prefix}${i}`);
  return keys;
}
