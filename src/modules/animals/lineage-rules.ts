/**
 * The pedigree's rules on the Animal (docs/records.md "Lineage"): a dam and a sire as about to be stored, and
 * a parent's sex and species against the offspring that name it. The animals service checks them on create
 * and update; the breeding module on a birth and a mating check.
 */
import type { Db } from '../../db/schema.ts';
import { breedingSpeciesOf, isFemale, maySire } from '../../domain/breeding.ts';
import { invalid } from '../../domain/errors.ts';
import { type AnimalRow, lineageRows, offspringOf } from './repository.ts';

/** The most ancestors a cycle check walks (a herd book's lines are far shorter; a bound, not a limit met). */
const MAX_LINEAGE_WALK = 100_000;

function sameSpecies(a: string, b: string): boolean {
  const ka = breedingSpeciesOf(a) ?? a.trim().toLowerCase();
  const kb = breedingSpeciesOf(b) ?? b.trim().toLowerCase();
  return ka === kb;
}

/** Whether `id` is `from` or one of its ancestors (walked up by parent, a generation per query). */
async function isAncestorOrSelf(
  db: Db,
  scope: { accountId: string; mode: 'live' | 'test' },
  id: string,
  from: string,
): Promise<boolean> {
  const seen = new Set<string>([from]);
  let frontier = [from];
  while (frontier.length > 0 && seen.size < MAX_LINEAGE_WALK) {
    if (frontier.includes(id)) return true;
    const rows = await lineageRows(db, scope.accountId, scope.mode, frontier);
    frontier = [];
    for (const row of rows) {
      for (const parent of [row.dam_id, row.sire_id]) {
        if (parent !== null && !seen.has(parent)) {
          seen.add(parent);
          frontier.push(parent);
        }
      }
    }
  }
  return false;
}

/**
 * An animal's dam and sire as about to be stored (docs/records.md "Lineage"): each an animal of the account
 * (any farm, this mode) of the same species, the dam a female, the sire not; neither the animal itself nor one
 * of its descendants (no cycles); an outside sire by name instead of sire_id, not both. A 400 naming the member.
 */
export async function checkLineage(
  db: Db,
  row: Pick<AnimalRow, 'id' | 'account_id' | 'mode' | 'species' | 'dam_id' | 'sire_id' | 'sire_name'>,
  changed: { dam: boolean; sire: boolean },
): Promise<void> {
  if (row.sire_id !== null && row.sire_name !== null) {
    throw invalid(
      'sire_name',
      'Give sire_id (an animal of the account) or sire_name (an outside sire), not both.',
    );
  }
  const scope = { accountId: row.account_id, mode: row.mode };
  const parents = [
    { param: 'dam_id', id: changed.dam ? row.dam_id : null, role: 'dam' },
    { param: 'sire_id', id: changed.sire ? row.sire_id : null, role: 'sire' },
  ] as const;
  for (const { param, id, role } of parents) {
    if (id === null) continue;
    const [parent] = await lineageRows(db, scope.accountId, scope.mode, [id]);
    if (!parent) throw invalid(param, `${param} "${id}" is not an animal of this account.`);
    if (!sameSpecies(parent.species, row.species)) {
      throw invalid(param, `${param} "${id}" is ${parent.species}; this animal is ${row.species}.`);
    }
    if (role === 'dam' && !isFemale(parent.sex)) {
      throw invalid(param, `dam_id "${id}" is not recorded as a female (sex ${parent.sex ?? 'unknown'}).`);
    }
    if (role === 'sire' && !maySire(parent.sex)) {
      throw invalid(param, `sire_id "${id}" is recorded as ${parent.sex}, which cannot sire.`);
    }
    if (await isAncestorOrSelf(db, scope, row.id, id)) {
      throw invalid(
        param,
        `${param} "${id}" is this animal or one of its descendants: a pedigree has no loops.`,
      );
    }
  }
}

/**
 * A parent's sex and species as about to be stored, against the offspring that name it: a dam stays
 * female, a sire able to sire, and both their offspring's species (the pedigree would otherwise show a male
 * dam or a sheep sire of a calf). A 400 naming the member.
 */
export async function checkAsParent(
  db: Db,
  row: Pick<AnimalRow, 'id' | 'account_id' | 'mode' | 'species' | 'sex'>,
): Promise<void> {
  const offspring = await offspringOf(db, row.account_id, row.mode, row.id);
  const said = (o: { id: string; tag: string | null }) => o.tag ?? o.id;
  for (const o of offspring) {
    if (o.dam_id === row.id && !isFemale(row.sex)) {
      throw invalid('sex', `This animal is the dam of ${said(o)}: it stays recorded as a female.`);
    }
    if (o.sire_id === row.id && !maySire(row.sex)) {
      throw invalid('sex', `This animal is the sire of ${said(o)}: it cannot be recorded as ${row.sex}.`);
    }
    if (!sameSpecies(o.species, row.species)) {
      throw invalid('species', `This animal is a parent of ${said(o)}, which is ${o.species}.`);
    }
  }
}
