/**
 * EIDs stored before the ISO 11784 rule (src/domain/eid.ts) in another written form (`982 000001088420`,
 * `LA 982 000001088420`) are rewritten as their 15 digits, so the lookups that now read every form that way
 * still find them. One that would collide with another animal of the same account and mode already holding
 * those digits is left as it was (two animals claimed one number; a person decides which), and so is every
 * value that is not an ISO number. The search text (name, tag, eid, breed, lower-cased, one a line) follows.
 */
import type { Kysely } from 'kysely';
import { normalizeEid } from '../../domain/eid.ts';

interface AnimalEid {
  id: string;
  account_id: string;
  mode: string;
  eid: string;
  name: string | null;
  tag: string | null;
  breed: string | null;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const animals = db as unknown as Kysely<{ animals: AnimalEid & { search_text: string } }>;
  const rows = await animals
    .selectFrom('animals')
    .select(['id', 'account_id', 'mode', 'eid', 'name', 'tag', 'breed'])
    .where('eid', 'is not', null)
    .execute();
  const held = new Set(rows.map((r) => `${r.account_id} ${r.mode} ${r.eid}`));
  for (const row of rows) {
    const eid = normalizeEid(row.eid);
    if (eid === row.eid || eid === '') continue;
    const key = `${row.account_id} ${row.mode} ${eid}`;
    if (held.has(key)) continue;
    held.add(key);
    const searchText = [row.name, row.tag, eid, row.breed]
      .filter((v): v is string => v !== null)
      .map((v) => v.toLowerCase())
      .join('\n');
    await animals
      .updateTable('animals')
      .set({ eid, search_text: searchText })
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(): Promise<void> {
  // The written forms are not kept: the 15 digits are the same EID.
}
