import type { Generated } from 'kysely';

/** Row types of the farm records tables (migration 0002_records). Times are epoch ms; JSON is text. */

export interface PaddocksTable {
  id: string;
  farm_id: string;
  name: string;
  acres: number | null;
  /** JSON text of the geometry object, or null. */
  geometry: string | null;
  rest_days_target: number | null;
  last_grazed_at: number | null;
  created_at: number;
}

export interface AnimalGroupsTable {
  id: string;
  farm_id: string;
  name: string;
  species: string;
  kind: string;
  head_count: number | null;
  hatch_date: number | null;
  paddock_id: string | null;
  created_at: number;
}

export interface AnimalsTable {
  id: string;
  farm_id: string;
  account_id: string;
  mode: 'live' | 'test';
  species: string;
  name: string | null;
  tag: string | null;
  eid: string | null;
  sex: string | null;
  breed: string | null;
  birth_date: number | null;
  group_id: string | null;
  paddock_id: string | null;
  status: string;
  notes: string | null;
  /** JSON text of the free-form custom fields object. */
  fields: string;
  /** Lower-cased name, tag, EID and breed joined by newlines; what `q` searches. */
  search_text: string;
  created_at: number;
  /** The animal's last write (creation, update, a group or paddock cleared under it): the field app's refresh. */
  changed_at: number;
  /** JSON text of its current withdrawal (migration 0038_herd_book: each food's end and why), or null. */
  withdrawal: string | null;
  /** When its meat withdrawal ends (the check on a sale), epoch ms, or null. */
  meat_withdrawal_until: number | null;
  /** The latest end of its meat, milk and eggs withdrawals (`?withdrawal=active`), or null. */
  withdrawal_until: number | null;
  /** Its dam and sire, animals of the account (migration 0045_breeding), or null. */
  dam_id: Generated<string | null>;
  sire_id: Generated<string | null>;
  /** An outside sire (an AI bull): by name and registration number, when sire_id is null. */
  sire_name: Generated<string | null>;
  sire_registration: Generated<string | null>;
  /** JSON text of its breeding state as its records leave it (src/domain/breeding.ts), or null. */
  breeding: Generated<string | null>;
  /** When it is due to give birth (bred or pregnant), epoch ms, or null. */
  due_at: Generated<number | null>;
}

/** Deleted animals' ids, for the field app's refresh (migration 0032_animal_changes). */
export interface AnimalRemovalsTable {
  farm_id: string;
  animal_id: string;
  removed_at: number;
}

export interface TasksTable {
  id: string;
  farm_id: string;
  title: string;
  notes: string | null;
  /** For a date-only due_at: the start of that day in the farm's zone; else the instant given. */
  due_at: number | null;
  /** The day a task is due on (`YYYY-MM-DD`) when due_at was given without a time; else null. */
  due_date: string | null;
  assignee: string | null;
  status: string;
  subject_type: string | null;
  subject_id: string | null;
  alert_id: string | null;
  done_at: number | null;
  created_at: number;
  /** Where the task moves its animal or group when it is done (migration 0031), or null. */
  paddock_id: Generated<string | null>;
}

export interface FarmEventsTable {
  id: string;
  farm_id: string;
  type: string;
  subject_type: string | null;
  subject_id: string | null;
  /** JSON text of the event's data object. */
  data: string;
  at: number;
  created_at: number;
}

/**
 * Who was in which paddock from when to when (migration 0031): an animal's or group's stays are rebuilt
 * from its moves in `at` order (modules/grazing); a house's follow its positions.
 */
export interface GrazingStaysTable {
  id: string;
  farm_id: string;
  paddock_id: string;
  subject_type: 'animal' | 'group' | 'house';
  subject_id: string;
  /** The subject's name when the stay was last recorded (kept after the subject is deleted). */
  name: string;
  from_at: number;
  /** Null while the subject is still there. */
  until_at: number | null;
  /** The move event that began the stay; null for a first placement or a house's position. */
  move_id: string | null;
}

export interface RecordsTables {
  paddocks: PaddocksTable;
  animal_groups: AnimalGroupsTable;
  animals: AnimalsTable;
  animal_removals: AnimalRemovalsTable;
  tasks: TasksTable;
  farm_events: FarmEventsTable;
  grazing_stays: GrazingStaysTable;
}
