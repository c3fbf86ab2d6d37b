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

function sireOf(row: PedigreeRow): string | null {
  return row.sire_id ?? outsideSireId(row);
}

/** Every recorded ancestor of these animals (each once), read a generation per query. */
async function ancestorsOf(
  db: Db,
  scope: Scope,
  start: readonly PedigreeRow[],
): Promise<Map<string, PedigreeRow>> {
  const known = new Map<string, PedigreeRow>(start.map((r) => [r.id, r]));
  let frontier = start;
  while (frontier.length > 0) {
    const wanted = new Set<string>();
    for (const row of frontier) {
      for (const parent of [row.dam_id, row.sire_id])
        if (parent !== null && !known.has(parent)) wanted.add(parent);
    }
    if (wanted.size === 0) break;
    frontier = await pedigreeRows(db, scope.accountId, scope.mode, [...wanted]);
    for (const row of frontier) known.set(row.id, row);
  }
  return known;
}

function nodesOf(rows: Iterable<PedigreeRow>): PedigreeNode[] {
  return [...rows].map((r) => ({ id: r.id, sire: sireOf(r), dam: r.dam_id }));
}

function relative(row: PedigreeRow, generation: number, inbreeding: number): Relative {
  return {
    id: row.id,
    name: row.name,
    tag: row.tag,
    sex: row.sex,
    // The date part of the Animal's birth_date (a date given alone is midnight UTC, docs/records.md).
    birth_date: row.birth_date === null ? null : toIso(Number(row.birth_date)).slice(0, 10),
    dam_id: row.dam_id,
    sire_id: sireOf(row),
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
 * whole recorded ancestry (whatever `generations` shows). Relatives may be on any farm of the account.
 */
export async function getPedigree(db: Db, scope: Scope, animalId: string, input: PedigreeInput) {
  const row = await loadScoped(db, scope, 'animal', animalId);
  const generations = input.generations ?? 3;
  const [self] = await pedigreeRows(db, scope.accountId, scope.mode, [row.id]);
  if (!self) throw invalid('id', 'No such animal.');
  const known = await ancestorsOf(db, scope, [self]);

  // Descendants a generation at a time; their own ancestors (other parents) join the coefficients' pedigree.
  const descendants: Array<{ row: PedigreeRow; generation: number }> = [];
  let frontier = [self.id];
  const seen = new Set<string>([self.id]);
  for (let g = 1; g <= generations && frontier.length > 0; g++) {
    const children = (await childrenOf(db, scope.accountId, scope.mode, frontier)).filter(
      (c) => !seen.has(c.id),
    );
    for (const child of children) {
      seen.add(child.id);
      descendants.push({ row: child, generation: g });
    }
    frontier = children.map((c) => c.id);
  }
  const withDescendants = await ancestorsOf(db, scope, [...known.values(), ...descendants.map((d) => d.row)]);
  const F = inbreedingCoefficients(nodesOf(withDescendants.values()));

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
        ancestors.push(relative(parent, g, F.get(parent.id) ?? 0));
        nextLevel.push(parent);
      }
    }
    level = nextLevel;
  }
  return {
    animal: toAnimal(row),
    ancestors,
    descendants: descendants.map((d) => relative(d.row, d.generation, F.get(d.row.id) ?? 0)),
    inbreeding: F.get(self.id) ?? 0,
  };
}

function percent(f: number): string {
  return `${Number((f * 100).toFixed(2))} %`;
}

/** The coefficient the offspring of a female and a proposed sire would have, and a warning at 6.25 % or more. */
export async function matingCheck(db: Db, scope: Scope, damId: string, sireId: string, damParam = 'id') {
  const dam = await loadScoped(db, scope, 'animal', damId);
  if (!isFemale(dam.sex)) throw invalid(damParam, `${dam.id} is not recorded as a female.`);
  await checkLineage(
    db,
    { ...dam, id: '\u0000offspring', dam_id: null, sire_id: sireId, sire_name: null },
    { dam: false, sire: true },
  );
  const starts = await pedigreeRows(db, scope.accountId, scope.mode, [dam.id, sireId]);
  const known = await ancestorsOf(db, scope, starts);
  const f = offspringInbreeding(nodesOf(known.values()), sireId, dam.id);
  const warning =
    f >= MATING_WARNING_AT
      ? `Their offspring would be ${percent(f)} inbred (the warning is at ${percent(MATING_WARNING_AT)}, first cousins' offspring): choose another sire.`
      : null;
  return { dam_id: dam.id, sire_id: sireId, offspring_inbreeding: f, warning };
}
