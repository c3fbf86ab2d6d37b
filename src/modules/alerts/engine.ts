/**
 * The alert engine's entry point. Ingest calls `evaluateReport` inside the report's transaction, after
 * the readings and device events are stored, so alerts open and resolve atomically with the report.
 */
import type { Trx } from '../../db/schema.ts';
import type { FarmRow } from '../farms/access.ts';

export interface IngestedReport {
  /** The reporting device's farm; `settings.rules` holds its threshold overrides. */
  farm: FarmRow;
  device: { id: string; name: string; type: string; animal_id: string | null };
  /** The report's readings as stored (unit resolved, `at` in epoch ms), in the order received. */
  readings: ReadonlyArray<{ metric: string; value: number; unit: string | null; at: number }>;
  /** The report's device events as stored in the farm event log. */
  events: ReadonlyArray<{ event_id: string; type: string; data: Record<string, unknown>; at: number }>;
  receivedAt: number;
}

export async function evaluateReport(_trx: Trx, _report: IngestedReport): Promise<void> {
  // Filled in by the alert engine (issue 5): rule evaluation and device-event alarms.
}
