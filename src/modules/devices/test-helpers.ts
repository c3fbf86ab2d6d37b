/** Shared pieces of the device, ingest, command and house tests: a live farm and devices on it. */
import assert from 'node:assert/strict';
import type { Reply, TestApp } from '../../../test/harness.ts';

/** Response JSON as tests read it (the harness types bodies the same way). */
// biome-ignore lint/suspicious/noExplicitAny: API JSON in tests, checked by assertions.
type Json = any;

export async function createLiveFarm(t: TestApp, key: string, name = 'Hillside'): Promise<string> {
  const res = await t.request('POST', '/v1/farms', { key, body: { name } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}

/** Creates a device through the API; returns the Device with its `device_key`. */
export async function addDevice(
  t: TestApp,
  key: string,
  farmId: string,
  body: Record<string, unknown> = {},
): Promise<Record<string, Json> & { id: string; device_key: string }> {
  const res = await t.request('POST', `/v1/farms/${farmId}/devices`, {
    key,
    body: { type: 'house', name: 'House 1', ...body },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Sends an ingest report with a device key. */
export function report(t: TestApp, deviceKey: string, body: unknown, path = '/v1/ingest'): Promise<Reply> {
  return t.request('POST', path, { key: deviceKey, body });
}

/** Outbox events of a type on a farm, oldest first, with parsed data. */
export async function outboxEvents(
  t: TestApp,
  farmId: string,
  type: string,
): Promise<Array<{ type: string; data: Record<string, Json> }>> {
  const rows = await t.database.db
    .selectFrom('outbox')
    .select(['type', 'data'])
    .where('farm_id', '=', farmId)
    .where('type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) }));
}
