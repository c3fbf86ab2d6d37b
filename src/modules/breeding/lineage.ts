/**
 * Lineage (issue 47): an animal's pedigree to n generations with its descendants, and the mating check, both
 * over Meuwissen and Luo's inbreeding coefficients (src/lib/inbreeding.ts); outside sires (AI bulls) are
 * pedigree nodes of their own, one per registration number. The breeding records and the females' state are
 * service.ts's.
 */
import type { Db } from '../../db/schema.ts';
import { isFemale } from '../../domain/breeding.ts';
import { invalid } from '../../domain/errors.ts';
import { inbreedingCoefficients, offspringInbreeding, type PedigreeNode } from '../../lib/inbreeding.ts';
import { toIso } from '../../lib/time.ts';
import { checkLineage } from '../animals/lineage-rules.ts';
import { toAnimal } from '../animals/repository.ts';
import type { Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import { childrenOf, type PedigreeRow, pedigreeRows } from './repository.ts';
import type { PedigreeInput, Relative } from './schemas.ts';

/** The mating check warns at this offspring coefficient or more (first cousins' offspring: 6.25 %). */
export const MATING_WARNING_AT = 0.0625;

/** An outside sire as a pedigree node: one id per registration number (else name), so its offspring are half siblings. */
function outsideSireId(row: Pick<PedigreeRow, 'sire_name' | 'sire_registration'>): string | null {
  const key = row.sire_registration ?? row.sire_name;
  return key === null ? null : `outside:${key.trim().toLowerCase()}`;
}

/** A parent link as an answer shows it (see `linksShown`). */
type Shown = (parentId: string | null) => string | null;

/**
 * The parent links an answer shows, given every animal it read: for a restricted key, a parent it could not read
 * (on a farm outside its list, or deleted) is unknown, `null`, as if never recorded; not even its id is shown,
 * and the coefficients count it as unknown too (an id left in would make its offspring half siblings). An
 * unrestricted scope shows each link as stored.
 */
function linksShown(scope: Scope, read: ReadonlyMap<string, PedigreeRow>): Shown {
  return (id) => (id === null || !scope.farms || read.has(id) ? id : null);
}

function sireOf(row: PedigreeRow, shown: Shown): string | null {
  return row.sire_id !== null ? shown(row.sire_id) : outsideSireId(row);
}

/** Every recorded ancestor of these animals the scope sees (each once), read a generation per query. */
async function ancestorsOf(
  db: Db,
  scope: Scope,
  start: readonly PedigreeRow[],
): Promise<Map<string, PedigreeRow>> {
  const known = new Map<string, PedigreeRow>(start.map((r) => [r.id, r]));
  // Asked once: a parent the scope does not see (or a deleted one) is never read, so it is not asked again.
  const asked = new Set<string>(known.keys());
  let frontier = start;
  while (frontier.length > 0) {
    const wanted = new Set<string>();
    for (const row of frontier) {
      for (const parent of [row.dam_id, row.sire_id])
        if (parent !== null && !asked.has(parent)) wanted.add(parent);
    }
    if (wanted.size === 0) break;
    for (const id of wanted) asked.add(id);
    frontier = await pedigreeRows(db, scope, [...wanted]);
    for (const row of frontier) known.set(row.id, row);
  }
  return known;
}

function nodesOf(rows: Iterable<PedigreeRow>, shown: Shown): PedigreeNode[] {
  return [...rows].map((r) => ({ id: r.id, sire: sireOf(r, shown), dam: shown(r.dam_id) }));
}

function relative(row: PedigreeRow, generation: number, inbreeding: number, shown: Shown): Relative {
  return {
    id: row.id,
    name: row.name,
    tag: row.tag,
    sex: row.sex,
    // The date part of the Animal's birth_date (a date given alone is midnight UTC, docs/records.md).
    birth_date: row.birth_date === null ? null : toIso(Number(row.birth_date)).slice(0, 10),
    dam_id: shown(row.dam_id),
    sire_id: sireOf(row, shown),
    generation,
    inbreeding,
  };
}

function outsideRelative(id: string, row: PedigreeRow, generation: number): Relative {
  return {
    id,
    name: row.sire_name ?? row.sire_registration,
    tag: row.sire_registration,
    sex: 'male',
    birth_date: null,
    dam_id: null,
    sire_id: null,
    generation,
    inbreeding: 0,
  };
}

/**
 * An animal's pedigree: its ancestors and descendants to `generations`, and its inbreeding coefficient over its
 * whole recorded ancestry (whatever `generations` shows). Relatives may be on any farm of the account the
 * caller sees: for a restricted key, those on farms outside its list are left out as if never recorded, and
 * the links to them are null (`linksShown`), the animal's own included.
 */
export async function getPedigree(db: Db, scope: Scope, animalId: string, input: PedigreeInput) {
  const row = await loadScoped(db, scope, 'animal', animalId);
  const generations = input.generations ?? 3;
  const [self] = await pedigreeRows(db, scope, [row.id]);
  if (!self) throw invalid('id', 'No such animal.');
  const known = await ancestorsOf(db, scope, [self]);

  // Descendants a generation at a time; their own ancestors (other parents) join the coefficients' pedigree.
  const descendants: Array<{ row: PedigreeRow; generation: number }> = [];
  let frontier = [self.id];
  const seen = new Set<string>([self.id]);
  for (let g = 1; g <= generations && frontier.length > 0; g++) {
    const children = (await childrenOf(db, scope, frontier)).filter((c) => !seen.has(c.id));
    for (const child of children) {
      seen.add(child.id);
      descendants.push({ row: child, generation: g });
    }
    frontier = children.map((c) => c.id);
  }
  const withDescendants = await ancestorsOf(db, scope, [...known.values(), ...descendants.map((d) => d.row)]);
  const shown = linksShown(scope, withDescendants);
  const F = inbreedingCoefficients(nodesOf(withDescendants.values(), shown));

  const ancestors: Relative[] = [];
  let level: PedigreeRow[] = [self];
  const listed = new Set<string>();
  for (let g = 1; g <= generations && level.length > 0; g++) {
    const nextLevel: PedigreeRow[] = [];
    for (const child of level) {
      const outside = child.sire_id === null ? outsideSireId(child) : null;
      if (outside !== null && !listed.has(outside)) {
        listed.add(outside);
        ancestors.push(outsideRelative(outside, child, g));
      }
      for (const parentId of [child.dam_id, child.sire_id]) {
        const parent = parentId === null ? undefined : known.get(parentId);
        if (!parent || listed.has(parent.id)) continue;
        listed.add(parent.id);
        ancestors.push(relative(parent, g, F.get(parent.id) ?? 0, shown));
        nextLevel.push(parent);
      }
    }
    level = nextLevel;
  }
  const animal = toAnimal(row);
  return {
    animal: { ...animal, dam_id: shown(animal.dam_id), sire_id: shown(animal.sire_id) },
    ancestors,
    descendants: descendants.map((d) => relative(d.row, d.generation, F.get(d.row.id) ?? 0, shown)),
    inbreeding: F.get(self.id) ?? 0,
  };
}

function percent(f: number): string {
  return `${Number((f * 100).toFixed(2))} %`;
}

/**
 * The coefficient the offspring of a female and a proposed sire would have, and a warning at 6.25 % or more. A
 * sire on a farm outside a restricted key's list is refused as an unknown id is (checkLineage), and the
 * coefficient is over the ancestry the key sees, as the pedigree's is.
 */
export async function matingCheck(db: Db, scope: Scope, damId: string, sireId: string, damParam = 'id') {
  const dam = await loadScoped(db, scope, 'animal', damId);
  if (!isFemale(dam.sex)) throw invalid(damParam, `${dam.id} is not recorded as a female.`);
  await checkLineage(
    db,
    scope,
    { ...dam, id: '\u0000offspring', dam_id: null, sire_id: sireId, sire_name: null },
    { dam: false, sire: true },
  );
  const starts = await pedigreeRows(db, scope, [dam.id, sireId]);
  const known = await ancestorsOf(db, scope, starts);
  const f = offspringInbreeding(nodesOf(known.values(), linksShown(scope, known)), sireId, dam.id);
  const warning =
    f >= MATING_WARNING_AT
      ? `Their offspring would be ${percent(f)} inbred (the warning is at ${percent(MATING_WARNING_AT)}, first cousins' offspring): choose another sire.`
      : null;
  return { dam_id: dam.id, sire_id: sireId, offspring_inbreeding: f, warning };
}
