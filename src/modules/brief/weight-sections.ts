/**
 * The brief's weights (issue 47): animals whose latest gain fell below the farm's threshold
 * (`settings.weights.min_adg_kg_per_day`) or who lost weight, and groups not weighed for longer than the
 * farm's interval (`settings.weights.weigh_interval_days`, default 60). Only a recent gain counts (the
 * latest weight within the interval): an old gain is the group's "not weighed" item instead. A group never
 * weighed is not listed: a farm that does not weigh is not told to every morning.
 */
import type { Db } from '../../db/schema.ts';
import type { LanguageName } from '../../domain/display-units.ts';
import { weightSettingsOf } from '../../domain/weights.ts';
import { parseJson } from '../../lib/json.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import type { FarmRow } from '../farms/access.ts';
import { withGains } from '../weights/gain.ts';
import { lastWeighedPerGroup, type StoredWeight, weightsOf } from '../weights/repository.ts';
import { sayEs } from './messages.ts';
import type { Unranked } from './sections.ts';

export interface WeightFacts {
  settings: ReturnType<typeof weightSettingsOf>;
  /** Active animals whose latest weight is within the interval, with its gain. */
  gains: Array<{ id: string; name: string | null; tag: string | null; at: number; kg: number; gain: number }>;
  groups: Awaited<ReturnType<typeof lastWeighedPerGroup>>;
}

/** What the weights section reads (memoised with the brief's other facts). */
export async function readWeightFacts(db: Db, farm: FarmRow, now: number): Promise<WeightFacts> {
  const settings = weightSettingsOf(parseJson<Record<string, unknown>>(farm.settings, {}));
  const since = now - settings.weigh_interval_days * DAY_MS;
  const [recent, groups] = await Promise.all([
    db
      .selectFrom('farm_events')
      .innerJoin('animals', 'animals.id', 'farm_events.subject_id')
      .select(['animals.id', 'animals.name', 'animals.tag'])
      .distinct()
      .where('farm_events.farm_id', '=', farm.id)
      .where('farm_events.type', '=', 'weight')
      .where('farm_events.at', '>=', since)
      .where('animals.status', '=', 'active')
      .execute(),
    lastWeighedPerGroup(db, farm.id),
  ]);
  const history = await weightsOf(
    db,
    farm.id,
    recent.map((a) => a.id),
  );
  const byAnimal = new Map<string, StoredWeight[]>();
  for (const w of history) byAnimal.set(w.animal_id, [...(byAnimal.get(w.animal_id) ?? []), w]);
  const gains: WeightFacts['gains'] = [];
  for (const animal of recent) {
    const last = withGains(byAnimal.get(animal.id) ?? []).at(-1);
    if (!last || last.gain === null || last.at < since) continue;
    gains.push({
      id: animal.id,
      name: animal.name,
      tag: animal.tag,
      at: last.at,
      kg: last.kg,
      gain: last.gain,
    });
  }
  return { settings, gains, groups };
}

const nameOf = (a: { name: string | null; tag: string | null; id: string }) => a.name ?? a.tag ?? a.id;

type Gain = WeightFacts['gains'][number];

function gainWords(a: Gain, threshold: number | null) {
  return {
    title: a.gain < 0 ? `${nameOf(a)} lost weight` : `${nameOf(a)} is gaining slowly`,
    detail:
      a.gain < 0
        ? `${a.gain} kg/day since the weight before; ${a.kg} kg.`
        : `${a.gain} kg/day, below the farm's ${threshold} kg/day; ${a.kg} kg.`,
  };
}

/** The same in Spanish; the numbers written as the English writes them (the catalog's units). */
function gainWordsEs(a: Gain, threshold: number | null) {
  const numbers = { animal: nameOf(a), gain: String(a.gain), kg: String(a.kg) };
  return a.gain < 0
    ? { title: sayEs('weight.lost.title', numbers), detail: sayEs('weight.lost.detail', numbers) }
    : {
        title: sayEs('weight.slow.title', numbers),
        detail: sayEs('weight.slow.detail', { ...numbers, threshold: String(threshold) }),
      };
}

/** Animals losing weight or gaining below the threshold (the lowest gain first), and groups overdue a weighing. */
export function weightSection(
  facts: WeightFacts,
  now: number,
  language: LanguageName = 'en',
): { gainItems: Unranked[]; groupItems: Unranked[] } {
  const en = language === 'en';
  const { min_adg_kg_per_day: threshold, weigh_interval_days: interval } = facts.settings;
  const gainItems = facts.gains
    .filter((a) => a.gain < 0 || (threshold !== null && a.gain < threshold))
    .sort((a, b) => a.gain - b.gain || a.id.localeCompare(b.id))
    .map(
      (a): Unranked => ({
        kind: 'weight_gain',
        severity: 'watch',
        ...(en ? gainWords(a, threshold) : gainWordsEs(a, threshold)),
        subject_type: 'animal',
        subject_id: a.id,
        ref_id: null,
        at: toIso(a.at),
      }),
    );
  const groupItems = facts.groups
    .filter((g) => g.head > 0 && g.last_at !== null && now - g.last_at > interval * DAY_MS)
    .sort((a, b) => (a.last_at as number) - (b.last_at as number) || a.group_id.localeCompare(b.group_id))
    .map(
      (g): Unranked => ({
        kind: 'group_not_weighed',
        severity: 'info',
        ...(en
          ? {
              title: `${g.name} not weighed for ${Math.floor((now - (g.last_at as number)) / DAY_MS)} days`,
              detail: `The farm weighs every ${interval} days; ${g.head} head.`,
            }
          : {
              title: sayEs('weighing.title', {
                group: g.name,
                count: Math.floor((now - (g.last_at as number)) / DAY_MS),
              }),
              detail: sayEs('weighing.detail', { interval: String(interval), count: g.head }),
            }),
        subject_type: 'group',
        subject_id: g.group_id,
        ref_id: null,
        at: toIso(g.last_at),
      }),
    );
  return { gainItems, groupItems };
}
