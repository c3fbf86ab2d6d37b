/** Row types of weigh sessions (migration 0044_weigh_sessions). Times are epoch ms; JSON is text. */

/** An imported weigh session and its summary; its weights are `weight` farm events naming it. */
export interface WeighSessionsTable {
  id: string;
  farm_id: string;
  name: string | null;
  format: string;
  /** SHA-256 (hex) of the file's text: the same file imports nothing twice. */
  file_hash: string;
  /** When the session was weighed: its earliest row's time. */
  at: number;
  rows: number;
  head_count: number;
  created_animals: number;
  mean_kg: number | null;
  min_kg: number | null;
  max_kg: number | null;
  adg_kg_per_day: number | null;
  previous_session_id: string | null;
  /** JSON text of [{from_kg, to_kg, count}]. */
  histogram: string;
  created_at: number;
}

export interface WeightTables {
  weigh_sessions: WeighSessionsTable;
}
