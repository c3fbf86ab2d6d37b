/**
 * Weights and average daily gain (issue 47, docs/records.md "Weights"). Every weight is a `weight` event of
 * the farm log, whatever brought it in (a client's event, a scale head's reading matched by EID, a weigh
 * session, the chute page): the log is the one history, so an edited or deleted weight event is an edited or
 * deleted weight, with nothing to keep in step. These functions read it and do the arithmetic (gain.ts).
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { impossibleWeight, WEIGHT_EVENT } from '../../domain/weights.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { recordFarmEvent } from '../events/record.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseRecordAt, requireDone } from '../records/inputs.ts';
import { loadScoped } from '../records/scoped.ts';
import { adgOver, meanOf, projection, roundGain, spreadOf, withGains } from './gain.ts';
import { type StoredWeight, weightsOf } from './repository.ts';
import type {
  AnimalWeights,
  GroupWeights,
  RecordWeightInput,
  WeightEntry,
  WeightsQueryInput,
} from './schemas.ts';

/** The period `since`/`until` or `days` name, as epoch ms (a 400 naming the member when it is not a date). */
function periodOf(
  query: WeightsQueryInput,
  now: number,
  timeZone: string,
): { since: number | null; until: number | null } {
  if (query.days !== undefined && query.since !== undefined) {
    throw invalid('days', 'Give days or since, not both.');
  }
  const since =
    query.days !== undefined ? now - query.days * DAY_MS : parseRecordAt('since', query.since, timeZone);
  const until = parseRecordAt('until', query.until, timeZone);
  if (since !== null && until !== null && until <= since)
    throw invalid('until', 'until must be after since.');
  return { since, until };
}

/** An animal's weights with gains, ADG over the period and the projection to today. */
export function weightsAnswer(
  animalId: string,
  history: readonly StoredWeight[],
  period: { since: number | null; until: number | null },
  now: number,
): AnimalWeights {
  const gained = withGains(history);
  const inPeriod = gained.filter(
    (w) => (period.since === null || w.at >= period.since) && (period.until === null || w.at < period.until),
  );
  const latest = inPeriod[inPeriod.length - 1];
  const projected = projection(latest, latest?.gain ?? null, period.until ?? now);
  const data: WeightEntry[] = inPeriod
    .map((w) => ({
      at: toIso(w.at),
      kg: w.kg,
      gain_kg_per_day: w.gain,
      source: w.source,
      event_id: w.event_id,
      session_id: w.session_id,
    }))
    .reverse();
  return {
    animal_id: animalId,
    data,
    adg_kg_per_day: adgOver(inPeriod),
    projected_kg: projected?.kg ?? null,
    projected_at: projected ? toIso(projected.at) : null,
  };
}

/** GET /v1/animals/{id}/weights. */
export async function getAnimalWeights(
  db: Db,
  scope: Scope,
  animalId: string,
  query: WeightsQueryInput,
  now: number = Date.now(),
): Promise<AnimalWeights> {
  const animal = await loadScoped(db, scope, 'animal', animalId);
  const period = periodOf(query, now, (await requireFarm(db, scope, animal.farm_id)).timezone);
  const history = await weightsOf(db, animal.farm_id, [animal.id]);
  return weightsAnswer(animal.id, history, period, now);
}

/** How many animals `lowest_gain` lists. */
const LOWEST_GAIN_COUNT = 5;

/** GET /v1/groups/{id}/weights: the group's active animals, each by its latest weight (at or after `since`). */
export async function getGroupWeights(
  db: Db,
  scope: Scope,
  groupId: string,
  query: { since?: string | undefined },
): Promise<GroupWeights> {
  const group = await loadScoped(db, scope, 'group', groupId);
  const since = parseRecordAt('since', query.since, (await requireFarm(db, scope, group.farm_id)).timezone);
  const animals = await db
    .selectFrom('animals')
    .select(['id', 'name', 'tag'])
    .where('farm_id', '=', group.farm_id)
    .where('group_id', '=', group.id)
    .where('status', '=', 'active')
    .execute();
  const history = await weightsOf(
    db,
    group.farm_id,
    animals.map((a) => a.id),
  );
  const byAnimal = new Map<string, StoredWeight[]>();
  for (const w of history) {
    const list = byAnimal.get(w.animal_id) ?? [];
    list.push(w);
    byAnimal.set(w.animal_id, list);
  }
  const latest = animals.flatMap((animal) => {
    const gained = withGains(byAnimal.get(animal.id) ?? []);
    const last = gained[gained.length - 1];
    if (!last || (since !== null && last.at < since)) return [];
    return [{ animal, last }];
  });
  const spread = spreadOf(latest.map((l) => l.last.kg));
  const gains = latest.map((l) => l.last.gain).filter((g): g is number => g !== null);
  const meanGain = meanOf(gains);
  const lastAt = latest.reduce<number | null>(
    (max, l) => (max === null || l.last.at > max ? l.last.at : max),
    null,
  );
  const lowest = latest
    .filter((l) => l.last.gain !== null)
    .sort(
      (a, b) => (a.last.gain as number) - (b.last.gain as number) || a.animal.id.localeCompare(b.animal.id),
    )
    .slice(0, LOWEST_GAIN_COUNT)
    .map(({ animal, last }) => ({
      animal_id: animal.id,
      name: animal.name,
      tag: animal.tag,
      kg: last.kg,
      at: toIso(last.at),
      gain_kg_per_day: last.gain,
    }));
  return {
    group_id: group.id,
    head: animals.length,
    head_weighed: latest.length,
    mean_kg: spread.mean_kg,
    min_kg: spread.min_kg,
    max_kg: spread.max_kg,
    // To the gram: 330.3 − 310.1 is 20.2, not 20.19999999999999.
    spread_kg:
      spread.min_kg === null || spread.max_kg === null
        ? null
        : Math.round((spread.max_kg - spread.min_kg) * 1000) / 1000,
    sd_kg: spread.sd_kg,
    mean_adg_kg_per_day: meanGain === null ? null : roundGain(meanGain),
    last_weighed_at: toIso(lastAt),
    lowest_gain: lowest,
  };
}

/**
 * POST /v1/animals/{id}/weights (the chute page, MCP's record_weight): one weight, checked against the
 * species (a misread refused), logged as a `weight` event with its source. Answers the animal's weights.
 */
export async function recordWeight(
  db: Db,
  scope: Scope,
  animalId: string,
  input: RecordWeightInput,
  now: number = Date.now(),
): Promise<AnimalWeights> {
  return inTransaction(db, async (trx) => {
    const animal = await loadScoped(trx, scope, 'animal', animalId);
    const farm = await requireFarm(trx, scope, animal.farm_id);
    const at = input.at === undefined ? now : parseRecordAt('at', input.at, farm.timezone);
    requireDone('at', at, now, 'a weight');
    const impossible = impossibleWeight(input.kg, animal.species);
    if (impossible) throw invalid('kg', impossible);
    await recordFarmEvent(
      trx,
      animal.farm_id,
      {
        type: WEIGHT_EVENT,
        subject_type: 'animal',
        subject_id: animal.id,
        data: { kg: input.kg, source: input.source ?? 'chute', ...(input.note ? { note: input.note } : {}) },
        at,
      },
      now,
    );
    const history = await weightsOf(trx, animal.farm_id, [animal.id]);
    return weightsAnswer(animal.id, history, { since: null, until: null }, now);
  });
}
