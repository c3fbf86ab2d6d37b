/**
 * The brief's breeding items (issue 47, docs/records.md "Breeding"): births overdue, births due in the next
 * 7 days, pregnancy checks due (35 to 60 days after a service that no check has confirmed), and heats expected
 * today. Read from each female's stored breeding state, so the brief costs one query of the farm's bred,
 * pregnant and cycling females.
 */
import type { Db } from '../../db/schema.ts';
import {
  breedingAt,
  breedingSpeciesOf,
  dayOf,
  pregnancyCheckDue,
  type StoredBreeding,
  zoneOf,
} from '../../domain/breeding.ts';
import { parseJson } from '../../lib/json.ts';
import { localDateText, localDaysBetween } from '../../lib/local-time.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import { breedingAnimals } from '../breeding/repository.ts';
import { sayEs } from './messages.ts';
import type { BriefContext, Unranked } from './sections.ts';

/** Births due within this many days are listed. */
export const BIRTHS_DUE_WITHIN_DAYS = 7;

export type BreedingFactRow = Awaited<ReturnType<typeof breedingAnimals>>[number];

export function readBreedingFacts(db: Db, farmId: string): Promise<BreedingFactRow[]> {
  return breedingAnimals(db, farmId);
}

const BIRTH_VERB: Record<string, string> = {
  cattle: 'calve',
  sheep: 'lamb',
  goats: 'kid',
  pigs: 'farrow',
  horses: 'foal',
};

function who(row: BreedingFactRow): string {
  if (row.name && row.tag) return `${row.name} (${row.tag})`;
  return row.name ?? row.tag ?? row.id;
}

/** Calendar days from one `YYYY-MM-DD` to another. */
function daysFrom(day: string, to: string): number {
  return Math.round((Date.parse(to) - Date.parse(day)) / DAY_MS);
}

/** Overdue births (watch), births due within 7 days, pregnancy checks due and heats expected today (info). */
export function breedingSection(rows: readonly BreedingFactRow[], ctx: BriefContext): Unranked[] {
  const { now } = ctx;
  const todayDate = localDateText(now, ctx.timezone);
  const overdue: Unranked[] = [];
  const due: Unranked[] = [];
  const checks: Unranked[] = [];
  const heats: Unranked[] = [];
  const en = (ctx.language ?? 'en') === 'en';
  const base = (row: BreedingFactRow) => ({ subject_type: 'animal', subject_id: row.id, ref_id: null });
  for (const row of rows) {
    const stored = parseJson<StoredBreeding | null>(row.breeding, null);
    if (!stored) continue;
    const s = breedingAt(stored, now);
    const verb = BIRTH_VERB[breedingSpeciesOf(row.species) ?? ''] ?? 'give birth';
    const carrying = s.state === 'bred' || s.state === 'pregnant';
    // Her days are the farm's calendar days, as the Animal's due_date (domain/breeding.ts).
    const dueDay = carrying ? dayOf(s.due_at, s) : null;
    const served = dayOf(s.service_at, s);
    if (dueDay !== null && dueDay < todayDate) {
      const days = daysFrom(dueDay, todayDate);
      overdue.push({
        kind: 'birth_overdue',
        severity: 'watch',
        title: en ? `${who(row)} is overdue to ${verb}` : sayEs('birth.overdue.title', { animal: who(row) }),
        detail: en
          ? `Due ${dueDay}, ${days} ${days === 1 ? 'day' : 'days'} ago.`
          : sayEs('birth.overdue.detail', { date: dueDay, count: days }),
        ...base(row),
        at: toIso(s.due_at),
      });
    } else if (dueDay !== null && daysFrom(todayDate, dueDay) <= BIRTHS_DUE_WITHIN_DAYS) {
      due.push({
        kind: 'birth_due',
        severity: 'info',
        title: en ? `${who(row)} is due to ${verb}` : sayEs('birth.due.title', { animal: who(row) }),
        detail: en
          ? `Due ${dueDay}${s.state === 'pregnant' ? ' (confirmed pregnant)' : ''}.`
          : sayEs(s.state === 'pregnant' ? 'birth.due.detail_pregnant' : 'birth.due.detail', {
              date: dueDay,
            }),
        ...base(row),
        at: toIso(s.due_at),
      });
    }
    if (s.service_at !== null && pregnancyCheckDue(s, now) !== null) {
      const days = localDaysBetween(s.service_at, now, zoneOf(s));
      checks.push({
        kind: 'pregnancy_check_due',
        severity: 'info',
        title: en ? `Pregnancy check due for ${who(row)}` : sayEs('check.title', { animal: who(row) }),
        detail: en
          ? `Served ${served}, ${days} days ago.`
          : sayEs('check.detail', { date: served, count: days }),
        ...base(row),
        at: toIso(s.service_at),
      });
    }
    if ((s.state === 'open' || s.state === 'bred') && dayOf(s.next_heat_at, s) === todayDate) {
      heats.push({
        kind: 'heat_expected',
        severity: 'info',
        title: en ? `${who(row)} may come on heat today` : sayEs('heat.title', { animal: who(row) }),
        detail: en
          ? s.state === 'bred'
            ? `Served ${served}: watch for a return if it did not hold.`
            : `One cycle after her last heat or failed service.`
          : s.state === 'bred'
            ? sayEs('heat.detail_bred', { date: served })
            : sayEs('heat.detail_open'),
        ...base(row),
        at: toIso(s.next_heat_at),
      });
    }
  }
  const byAt = (a: Unranked, b: Unranked) => String(a.at).localeCompare(String(b.at));
  return [...overdue.sort(byAt), ...due.sort(byAt), ...checks.sort(byAt), ...heats.sort(byAt)];
}
