import type { ColumnType, Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  mode: 'live' | 'test';
  prefix: string;
  key_hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** JSON array of farm ids the key is restricted to; null: every farm of its mode. */
  farms: string | null;
  /** JSON object of family grants (`{"records": "read"}`); null: every family at write. */
  permissions: string | null;
}

export interface RateLimitCountersTable {
  bucket: string;
  window_start: number;
  count: number;
}

export interface FarmsTable {
  id: string;
  account_id: string;
  name: string;
  mode: 'live' | 'test';
  timezone: string;
  lat: number | null;
  lon: number | null;
  acres: number | null;
  sample: Generated<number>;
  /** JSON text. */
  settings: string;
  /** JSON text of its holding number {number, type} (migration 0041_movements), or null. */
  holding: ColumnType<string | null, string | null | undefined, string | null>;
  /** Bumped with every change to the farm's custom rules (the engine's rule cache checks it). */
  rules_version: Generated<number>;
  created_at: number;
}

export interface UsageCountsTable {
  account_id: string;
  day: string;
  surface: string;
  count: number;
}

export interface OutboxTable {
  id: string;
  farm_id: string;
  type: string;
  /** JSON text of the event's data object. */
  data: string;
  created_at: number;
  dispatched_at: number | null;
  /**
   * The live stream's position, given in commit order by the stream's sequencer (modules/stream): null until
   * sequenced, SEQ_NEVER_STREAMED for rows never streamed (the sample farm's seed).
   */
  seq: number | null;
  /** When the notification planner read this alert event (modules/notifications); null until then. */
  notified_at: number | null;
}

/**
 * `outbox.seq` of rows that are never streamed (the sample farm's seed; webhooks do not get them either):
 * with the table, since the outbox's writers (webhooks, sample) and its reader (stream) all need it.
 */
export const SEQ_NEVER_STREAMED = 0;

/** One row (id 1): the last `outbox.seq` handed out; its row lock serialises the sequencers. */
export interface OutboxSequenceTable {
  id: number;
  value: number;
}

export interface FoundationTables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  farms: FarmsTable;
  usage_counts: UsageCountsTable;
  outbox: OutboxTable;
  outbox_sequence: OutboxSequenceTable;
  rate_limit_counters: RateLimitCountersTable;
}
