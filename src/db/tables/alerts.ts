import { ACTIVE_ALERT_STATUSES, type AlertStatus } from '../../domain/statuses.ts';

export type { AlertStatus } from '../../domain/statuses.ts';
export type AlertSeverity = 'urgent' | 'watch' | 'info';

export interface AlertsTable {
  id: string;
  farm_id: string;
  severity: AlertSeverity;
  /** 0 urgent, 1 watch, 2 info: lists sort on it (most urgent first). */
  severity_rank: number;
  title: string;
  reason: string;
  /** A rule name (`house.ammonia`) or, for device alarms, the event type (`predator.detected`). */
  rule: string;
  subject_type: string;
  subject_id: string;
  status: AlertStatus;
  created_at: number;
  updated_at: number;
  acknowledged_at: number | null;
  /** The person who acknowledged it (console or acknowledge token); null: a key, an agent, or not yet. */
  acknowledged_by: string | null;
  resolved_at: number | null;
  /**
   * The title and reason as message keys and parameters of src/domain/alert-words.ts, JSON text (migration
   * 0047); null for alerts opened before it, which are shown in their English `title` and `reason`.
   */
  words: string | null;
}

/**
 * The time of the latest reading the engine evaluated per device and metric, so a late reading
 * (older than one already evaluated) never reopens or resolves an alert.
 */
export interface AlertWatermarksTable {
  device_id: string;
  metric: string;
  farm_id: string;
  /** Epoch ms: the latest reading time evaluated (rows written before migration 0019 may hold null). */
  at: number | null;
  /** The watermark this row held before the latest report's evaluation (null: none). */
  prev_at: number | null;
}

export interface AlertTables {
  alerts: AlertsTable;
  alert_watermarks: AlertWatermarksTable;
}

/**
 * The statuses of an active alert (the domain's ACTIVE_ALERT_STATUSES) as SQL; the unique index
 * (migration 0004) and the engine's upsert use this exact text, `status in ('open', 'acknowledged')`.
 * Changing the list changes the text, which needs a migration that rebuilds the index.
 */
export const ACTIVE_ALERT_PREDICATE = `status in (${ACTIVE_ALERT_STATUSES.map((s) => `'${s}'`).join(', ')})`;
