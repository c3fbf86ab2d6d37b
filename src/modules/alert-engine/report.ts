/** What ingest hands the alert engine for one stored report (engine.ts, evaluateReport). */
import type { ClockReport } from './clock.ts';
import type { AnimalLabelRow } from './repository.ts';
import type { EngineFarm } from './rule-cache.ts';

export interface IngestedReport {
  /** The reporting device's farm; `settings.rules` holds its threshold overrides. */
  farm: EngineFarm;
  device: {
    id: string;
    name: string;
    type: string;
    animal_id: string | null;
    /** Its animal's name, tag, EID and group when ingest has read them already (null: no such animal). */
    animal?: AnimalLabelRow | null;
    group_id?: string | null;
    /** The device's device.quiet level before this report; a report resolves that alert. */
    quiet_level?: 'watch' | 'urgent' | null;
    /** The report's token on the device row and the one it replaced (recent-readings.ts); absent: none. */
    report_token?: string | null;
    report_token_prev?: string | null;
    /** 1 while the device may have an active device.clock alert (clock.ts). */
    clock_skewed?: number | null;
  };
  /** What the report said about the device's clock (ingest refused times too far ahead); absent: nothing. */
  clock?: ClockReport;
  /** How far ahead of receipt a time may be (FARMSTEAD_MAX_CLOCK_SKEW_S): a watermark beyond it is none. */
  maxClockSkewMs?: number;
  /** The report's readings as stored (unit resolved, `at` in epoch ms), in the order received. */
  readings: ReadonlyArray<{ metric: string; value: number; unit: string | null; at: number }>;
  /** The report's device events as stored in the farm event log. */
  events: ReadonlyArray<{ event_id: string; type: string; data: Record<string, unknown>; at: number }>;
  receivedAt: number;
}
