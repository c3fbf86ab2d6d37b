/**
 * Shared pieces of the alert engine tests: a device-shaped subject, and reports run through the engine
 * exactly as ingest runs them (inside one transaction).
 */
import assert from 'node:assert/strict';
import { newId } from '../src/domain/ids.ts';
import { evaluateReport } from '../src/modules/alert-engine/engine.ts';
import type { IngestedReport } from '../src/modules/alert-engine/report.ts';
import type { Alert } from '../src/modules/alerts/schemas.ts';
import type { TestApp } from './harness.ts';

export interface TestDevice {
  id: string;
  name: string;
  type: string;
  animal_id: string | null;
}

/** A device as the engine sees it; the engine needs no devices row. */
export function testDevice(overrides: Partial<TestDevice> = {}): TestDevice {
  return { id: newId('device'), name: 'House 2', type: 'house', animal_id: null, ...overrides };
}

/** Reading times march forward one minute per reading unless a test gives its own. */
let clock = Date.UTC(2026, 4, 1, 0, 0, 0);
export function nextTime(): number {
  clock += 60_000;
  return clock;
}

export type ReadingInput = { metric: string; value: number; unit?: string | null; at?: number };
export type EventInput = { type: string; data?: Record<string, unknown>; at?: number };

/** Runs one report through evaluateReport in its own transaction, as ingest does. */
export async function runReport(
  t: TestApp,
  farmId: string,
  device: TestDevice,
  input: { readings?: ReadingInput[]; events?: EventInput[]; receivedAt?: number },
): Promise<void> {
  const db = t.database.db;
  await db.transaction().execute(async (trx) => {
    const farm = await trx.selectFrom('farms').selectAll().where('id', '=', farmId).executeTakeFirstOrThrow();
    const report: IngestedReport = {
      farm,
      device,
      readings: (input.readings ?? []).map((r) => ({
        metric: r.metric,
        value: r.value,
        unit: r.unit === undefined ? null : r.unit,
        at: r.at ?? nextTime(),
      })),
      events: (input.events ?? []).map((e) => ({
        event_id: newId('event'),
        type: e.type,
        data: e.data ?? {},
        at: e.at ?? nextTime(),
      })),
      receivedAt: input.receivedAt ?? Date.now(),
    };
    await evaluateReport(trx, report);
  });
}

/** Shorthand: one reading of one metric. */
export function reading(
  t: TestApp,
  farmId: string,
  device: TestDevice,
  metric: string,
  value: number,
  at?: number,
): Promise<void> {
  return runReport(t, farmId, device, { readings: [{ metric, value, ...(at === undefined ? {} : { at }) }] });
}

/** Every alert of the farm through the API (status=all), in list order. */
export async function allAlerts(t: TestApp, key: string, farmId: string): Promise<Alert[]> {
  const res = await t.request<{ data: Alert[] }>('GET', `/v1/farms/${farmId}/alerts?status=all&limit=500`, {
    key,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}
