/**
 * The pedigree's rules on the Animal (docs/records.md "Lineage"): a dam and a sire as about to be stored, and
 * a parent's sex and species against the offspring that name it. The animals service checks them on create
 * and update; the breeding module on a birth and a mating check.
 */
import type { Db } from '../../db/schema.ts';
import { breedingSpeciesOf, isFemale, maySire } from '../../domain/breeding.ts';
import { invalid } from '../../domain/errors.ts';
import { type Scope, scopeSeesFarm } from '../farms/access.ts';
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
  scope: Pick<Scope, 'accountId' | 'mode'>,
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
 * (any farm the caller sees, this mode) of the same species, the dam a female, the sire not; neither the animal
 * itself nor one of its descendants (no cycles); an outside sire by name instead of sire_id, not both. A 400
 * naming the member.
 *
 * A parent on a farm outside a restricted key's list is refused with exactly the 400 of an unknown id, so the
 * key learns nothing of it (that it exists, its sex, its species). A link already stored (`stored`: the row as
 * it was) and checked again only because the animal's species changed keeps its parent wherever it is; if that
 * parent is out of sight, a misfit is refused without saying why. The cycle check walks the whole account's
 * pedigree, out-of-sight farms too: a loop through them would still be a loop.
 */
export async function checkLineage(
  db: Db,
  scope: Scope,
  row: Pick<AnimalRow, 'id' | 'species' | 'dam_id' | 'sire_id' | 'sire_name'>,
  changed: { dam: boolean; sire: boolean },
  stored: Pick<AnimalRow, 'dam_id' | 'sire_id'> | null = null,
): Promise<void> {
  if (row.sire_id !== null && row.sire_name !== null) {
    throw invalid(
      'sire_name',
      'Give sire_id (an animal of the account) or sire_name (an outside sire), not both.',
    );
  }
  const parents = [
    { param: 'dam_id', id: changed.dam ? row.dam_id : null, role: 'dam', kept: stored?.dam_id },
    { param: 'sire_id', id: changed.sire ? row.sire_id : null, role: 'sire', kept: stored?.sire_id },
  ] as const;
  for (const { param, id, role, kept } of parents) {
    if (id === null) continue;
    const [parent] = await lineageRows(db, scope.accountId, scope.mode, [id]);
    const unseen = parent !== undefined && !scopeSeesFarm(scope, parent.farm_id);
    if (!parent || (unseen && id !== kept)) {
      throw invalid(param, `${param} "${id}" is not an animal of this account.`);
    }
    const fits =
      sameSpecies(parent.species, row.species) &&
      (role === 'dam' ? isFemale(parent.sex) : maySire(parent.sex));
    if (unseen) {
      if (!fits || (await isAncestorOrSelf(db, scope, row.id, id))) {
        throw invalid(param, `${param} "${id}" cannot be this animal's ${role} as changed.`);
      }
      continue;
    }
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
 * dam or a sheep sire of a calf). A 400 naming the member. Offspring on farms the caller does not see still
 * count (the rule is the account's), but are not named: neither their tag nor their id nor their species.
 */
export async function checkAsParent(
  db: Db,
  scope: Scope,
  row: Pick<AnimalRow, 'id' | 'species' | 'sex'>,
): Promise<void> {
  const offspring = await offspringOf(db, scope.accountId, scope.mode, row.id);
  for (const o of offspring) {
    const seen = scopeSeesFarm(scope, o.farm_id);
    const said = seen ? (o.tag ?? o.id) : 'an animal on a farm this key does not see';
    if (o.dam_id === row.id && !isFemale(row.sex)) {
      throw invalid('sex', `This animal is the dam of ${said}: it stays recorded as a female.`);
    }
    if (o.sire_id === row.id && !maySire(row.sex)) {
      throw invalid('sex', `This animal is the sire of ${said}: it cannot be recorded as ${row.sex}.`);
    }
    if (!sameSpecies(o.species, row.species)) {
      throw invalid('species', `This animal is a parent of ${said}${seen ? `, which is ${o.species}` : ''}.`);
    }
  }
}
