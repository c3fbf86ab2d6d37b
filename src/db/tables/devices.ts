import type { Generated } from 'kysely';
import type { CommandStatus } from '../../domain/statuses.ts';

export interface DevicesTable {
  id: string;
  farm_id: string;
  type: string;
  name: string;
  serial: string | null;
  animal_id: string | null;
  group_id: string | null;
  firmware: string | null;
  lat: number | null;
  lon: number | null;
  battery: number | null;
  /**
   * When battery, lat, lon and firmware were read: the newest report's time that carried any (migration
   * 0050). An older report leaves them as they are. Null until a report sets it.
   */
  status_at: Generated<number | null>;
  /** JSON text of the device's state object, merged from its reports. */
  state: string;
  /** SHA-256 of the device key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, for recognising it. */
  key_prefix: string;
  last_seen_at: number | null;
  created_at: number;
  /** The usual gap between the device's reports in ms (smoothed mean), kept by ingest; null until two reports. */
  report_gap_ms: number | null;
  /** Severity of the device's active device.quiet alert, null when it has none. */
  quiet_level: 'watch' | 'urgent' | null;
  /** A random token each report stamps (alerts/recent-readings.ts), and the one it replaced. */
  report_token: string | null;
  report_token_prev: string | null;
  /** 1 while the device may have an active device.clock alert (a report of its carried times too far ahead). */
  clock_skewed: Generated<number>;
  /** The paddock the device's last position is in (point in polygon; migration 0031), null when none. */
  paddock_id: Generated<string | null>;
  /** The position paddock_id was derived from: a report at the same position derives nothing again. */
  placed_lat: Generated<number | null>;
  placed_lon: Generated<number | null>;
}

/**
 * Raw readings, append-only. No id: nothing addresses a single reading. Its statements and their column
 * list: db/statements/readings.ts (a new column goes there too).
 */
export interface ReadingsTable {
  device_id: string;
  farm_id: string;
  metric: string;
  value: number;
  unit: string | null;
  at: number;
  /** As the device sent it, when it was converted into the catalog's unit (migration 0023); else null. */
  raw_value: number | null;
  raw_unit: string | null;
}

/** The newest reading of each (device, metric), kept by ingest so "latest values" is one index read. */
export interface DeviceLatestTable {
  device_id: string;
  metric: string;
  value: number;
  unit: string | null;
  at: number;
}

export interface CommandsTable {
  id: string;
  farm_id: string;
  device_id: string;
  command: string;
  /** JSON text. */
  params: string;
  status: CommandStatus;
  /** JSON text, or null until the command finishes. */
  result: string | null;
  created_at: number;
  delivered_at: number | null;
  done_at: number | null;
  expires_at: number;
  /** How many times the command was handed out (ingest response, poll, MQTT push). */
  delivery_attempts: number;
  /** A command handed out and not answered this many seconds later is handed out again. */
  redeliver_after_s: number;
  /** When a delivered, unanswered command falls due to be handed out again; null until handed out. */
  redeliver_at: number | null;
}

/**
 * Every position a device reported (migration 0030), at the time its report was made (its `at`, else
 * arrival). Its statements and column list: db/statements/device-positions.ts.
 */
export interface DevicePositionsTable {
  device_id: string;
  farm_id: string;
  lat: number;
  lon: number;
  at: number;
}

/**
 * An MQTT report's idempotence key (migration 0046): the device and the SHA-256 of the payload's bytes,
 * written in the report's transaction; kept an hour (`mqtt.prune`).
 */
export interface MqttReportKeysTable {
  device_id: string;
  digest: string;
  received_at: number;
}

export interface DevicesTables {
  devices: DevicesTable;
  readings: ReadingsTable;
  device_positions: DevicePositionsTable;
  device_latest: DeviceLatestTable;
  commands: CommandsTable;
  mqtt_report_keys: MqttReportKeysTable;
}
