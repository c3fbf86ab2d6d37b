/** Row types of the herd book's medicine records (migration 0038_herd_book). Times are epoch ms; JSON is text. */

export interface MedicinesTable {
  id: string;
  farm_id: string;
  name: string;
  unit: string;
  active_ingredient: string | null;
  form: string | null;
  /** JSON text of the label's periods: {meat_days?, milk_days?, eggs_days?}. */
  withdrawal: string;
  /** JSON text of the periods by species where the label differs, or null. */
  species_withdrawal: string | null;
  /** JSON text of the species the medicine is licensed for; null: every species. */
  licensed_species: string | null;
  /** The stock line at or below which the brief lists it as low (migration 0042); null: a fifth of what was bought. */
  low_stock_at: number | null;
  created_at: number;
}

export interface MedicineBatchesTable {
  id: string;
  farm_id: string;
  medicine_id: string;
  batch: string;
  expiry: number;
  /** Bought, in the medicine's unit. */
  quantity: number;
  /** Given so far (dose × doses × animals of each treatment from it). */
  used: number;
  supplier: string | null;
  purchased_at: number | null;
  proof_of_purchase: string | null;
  created_at: number;
}

export interface TreatmentsTable {
  id: string;
  farm_id: string;
  animal_id: string;
  medicine_id: string;
  batch_id: string | null;
  dose: number;
  dose_unit: string;
  route: string;
  site: string | null;
  at: number;
  course_doses: number;
  course_every_hours: number;
  reason: string | null;
  given_by: string | null;
  vet: string | null;
  override_reason: string | null;
  /** JSON text of the withdrawal it set: {meat, milk, eggs} (each a FoodWithdrawal or null) and its sources. */
  withdrawal: string;
  /** The farm event it appears as in the log. */
  event_id: string | null;
  created_at: number;
}

/** A move on or off the holding (migration 0041_movements). */
export interface MovementsTable {
  id: string;
  farm_id: string;
  direction: string;
  at: number;
  /** JSON text of the animals' ids moved, or null for a mob counted by head. */
  animal_ids: string | null;
  head_count: number;
  species: string | null;
  other_holding: string;
  reason: string;
  transporter: string | null;
  vehicle: string | null;
  override_reason: string | null;
  /** The farm event it appears as in the log. */
  event_id: string | null;
  created_at: number;
}

export interface HerdBookTables {
  medicines: MedicinesTable;
  medicine_batches: MedicineBatchesTable;
  treatments: TreatmentsTable;
  movements: MovementsTable;
}
