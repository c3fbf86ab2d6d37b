/**
 * A female's stored breeding state (`animals.breeding`, JSON) keeps the time zone its days are counted in
 * (`zone`): her due date, next heat and pregnancy check are the farm's calendar days, not UTC's
 * (docs/records.md "Breeding"). States stored before take their farm's zone now; their instants stay as
 * they were folded (a service plus whole 24-hour days, so a DST change between may move a day only for a
 * record logged within an hour of midnight), and the next breeding record on her folds them anew.
 */
import { type Kysely, sql } from 'kysely';

interface Row {
  id: string;
  breeding: string;
  timezone: string;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<Row>`
    select animals.id, animals.breeding, farms.timezone
    from animals join farms on farms.id = animals.farm_id
    where animals.breeding is not null`.execute(db);
  for (const row of rows) {
    const stored = JSON.parse(row.breeding) as Record<string, unknown> | null;
    if (stored === null || typeof stored !== 'object' || 'zone' in stored) continue;
    const breeding = JSON.stringify({ ...stored, zone: row.timezone });
    await sql`update animals set breeding = ${breeding} where id = ${row.id}`.execute(db);
  }
}

export async function down(): Promise<void> {
  // Code before this migration ignores the member: nothing to undo.
}
