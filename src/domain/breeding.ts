/**
 * The herd book's breeding facts (issue 47, docs/records.md "Breeding"): each species' gestation and
 * oestrous cycle, the breeding records' event types, and how a female's breeding state follows from her
 * records. Pure: the breeding module reads the events and stores what `foldBreeding` answers on the animal.
 */

import { isPlainObject } from '../lib/json.ts';
import { addLocalDays, localDateText, localDaysBetween } from '../lib/local-time.ts';
import { type KnownSpecies, knownSpeciesOf } from './species.ts';

/** The species the registry knows (their names: domain/species.ts), with gestation and cycle. */
export const BREEDING_SPECIES = Object.freeze({
  cattle: { gestation_days: 283, cycle_days: 21 },
  sheep: { gestation_days: 147, cycle_days: 17 },
  goats: { gestation_days: 150, cycle_days: 21 },
  pigs: { gestation_days: 114, cycle_days: 21 },
  horses: { gestation_days: 340, cycle_days: 21 },
} as const satisfies Partial<Record<KnownSpecies, { gestation_days: number; cycle_days: number }>>);

export type BreedingSpecies = keyof typeof BREEDING_SPECIES;

/** The registry's species for an animal's free-form species ("ewes" → sheep), or null (a hen, a dog). */
export function breedingSpeciesOf(species: string): BreedingSpecies | null {
  const known = knownSpeciesOf(species);
  return known !== null && Object.hasOwn(BREEDING_SPECIES, known) ? (known as BreedingSpecies) : null;
}

const FEMALE_SEXES = new Set([
  'female',
  'f',
  'cow',
  'heifer',
  'ewe',
  'doe',
  'nanny',
  'sow',
  'gilt',
  'mare',
  'filly',
]);
const MALE_SEXES = new Set([
  'male',
  'm',
  'bull',
  'ram',
  'buck',
  'billy',
  'boar',
  'stallion',
  'colt',
  'entire',
]);

export function isFemale(sex: string | null): boolean {
  return sex !== null && FEMALE_SEXES.has(sex.trim().toLowerCase());
}

/** Known female words are refused as sires; castrates (steer, wether) too, but only when named as such. */
export function maySire(sex: string | null): boolean {
  if (sex === null) return true;
  const s = sex.trim().toLowerCase();
  return MALE_SEXES.has(s) || !(FEMALE_SEXES.has(s) || /castrat|steer|wether|gelding|barrow|bullock/.test(s));
}

/** How long after a birth a female is `fresh` before she counts as open again (docs/records.md). */
export const FRESH_DAYS = 60;

/** Pregnancy checks are due from this many days after a service until this many (docs/records.md). */
export const PREGNANCY_CHECK_WINDOW = Object.freeze({ from_days: 35, to_days: 60 });

/** The breeding records, each an event of the log with typed data (checked on write). */
export const BREEDING_EVENT_TYPES = [
  'heat',
  'service',
  'pregnancy_check',
  'birth',
  'abortion',
  'weaning',
] as const;
export type BreedingEventType = (typeof BREEDING_EVENT_TYPES)[number];

export function isBreedingEventType(type: string): type is BreedingEventType {
  return (BREEDING_EVENT_TYPES as readonly string[]).includes(type);
}

export const SERVICE_METHODS = ['ai', 'natural', 'bull_in'] as const;
export const PREGNANCY_RESULTS = ['pregnant', 'empty', 'recheck'] as const;
export const BREEDING_STATES = ['open', 'bred', 'pregnant', 'fresh'] as const;
export type BreedingState = (typeof BREEDING_STATES)[number];

/** The farm's own numbers (settings.breeding) over the registry's. */
export interface BreedingSettings {
  gestation_days?: Partial<Record<BreedingSpecies, number>>;
  cycle_days?: Partial<Record<BreedingSpecies, number>>;
}

export interface SpeciesTimes {
  gestation_days: number;
  cycle_days: number;
}

export function speciesTimes(species: BreedingSpecies, settings?: BreedingSettings | null): SpeciesTimes {
  const registry = BREEDING_SPECIES[species];
  return {
    gestation_days: settings?.gestation_days?.[species] ?? registry.gestation_days,
    cycle_days: settings?.cycle_days?.[species] ?? registry.cycle_days,
  };
}

/** Reads settings.breeding as stored (already checked by validateBreedingSettings). */
export function breedingSettingsOf(settings: Record<string, unknown> | null | undefined): BreedingSettings {
  const stored = settings?.breeding;
  return isPlainObject(stored) ? (stored as BreedingSettings) : {};
}

type SettingsResult = { ok: true; value: BreedingSettings } | { ok: false; param: string; message: string };

/** settings.breeding: `{gestation_days?: {cattle: 285, …}, cycle_days?: {…}}`, whole days within reason. */
export function validateBreedingSettings(input: unknown): SettingsResult {
  const root = 'settings.breeding';
  const fail = (param: string, message: string) => ({ ok: false as const, param, message });
  if (!isPlainObject(input)) return fail(root, `${root} must be an object {gestation_days, cycle_days}.`);
  const species = Object.keys(BREEDING_SPECIES).join(', ');
  const value: BreedingSettings = {};
  for (const [member, numbers] of Object.entries(input)) {
    const param = `${root}.${member}`;
    if (member !== 'gestation_days' && member !== 'cycle_days') {
      return fail(param, `${root} has no member "${member}" (gestation_days, cycle_days).`);
    }
    if (!isPlainObject(numbers))
      return fail(param, `${param} must be an object of days by species (${species}).`);
    const [min, max] = member === 'gestation_days' ? [60, 400] : [10, 40];
    const days: Partial<Record<BreedingSpecies, number>> = {};
    for (const [name, n] of Object.entries(numbers)) {
      if (!Object.hasOwn(BREEDING_SPECIES, name))
        return fail(`${param}.${name}`, `${param} takes ${species}.`);
      if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
        return fail(`${param}.${name}`, `${param}.${name} must be whole days from ${min} to ${max}.`);
      }
      days[name as BreedingSpecies] = n;
    }
    value[member] = days;
  }
  return { ok: true, value };
}

/** One breeding record as the fold reads it: its type, when, and the members that move the state. */
export interface BreedingRecord {
  type: BreedingEventType;
  at: number;
  result?: string | undefined;
  days_pregnant?: number | undefined;
  /** A birth with `offspring` (a birth logged without them is the spec's free-form event: not a calving). */
  calving?: boolean | undefined;
}

/** What the animal row keeps (`animals.breeding`, JSON); the answer's view is `breedingView` of it. */
export interface StoredBreeding {
  state: BreedingState;
  /** When the state began (the record that set it), epoch ms. */
  since: number | null;
  service_at: number | null;
  due_at: number | null;
  next_heat_at: number | null;
  fresh_until: number | null;
  /**
   * The farm's time zone when the state was folded: its days (due, next heat, check) are that zone's
   * calendar days. Absent on states stored before it was kept: read as UTC (`zoneOf`).
   */
  zone?: string;
}

export const OPEN: StoredBreeding = Object.freeze({
  state: 'open',
  since: null,
  service_at: null,
  due_at: null,
  next_heat_at: null,
  fresh_until: null,
});

/** The zone a stored state's days are counted in. */
export function zoneOf(s: Pick<StoredBreeding, 'zone'>): string {
  return s.zone ?? 'UTC';
}

/** The first day on the cycle from `anchor` after `after` (a service that did not hold, found out later). */
function nextOnCycle(anchor: number, after: number, cycleDays: number, zone: string): number {
  const cycles = Math.max(1, Math.floor(localDaysBetween(anchor, after, zone) / cycleDays) + 1);
  return addLocalDays(anchor, cycles * cycleDays, zone);
}

/**
 * A female's breeding state from her records, oldest first (docs/records.md "Breeding"):
 * heat → open, the next heat one cycle later; service → bred, due one gestation later, the return heat
 * watched one cycle later; pregnancy check pregnant → pregnant (the due date from days_pregnant when given),
 * empty → open (the next heat on the failed service's cycle), recheck → unchanged; birth with offspring →
 * fresh for FRESH_DAYS; abortion → open; weaning ends fresh. Days are the farm's calendar days (`zone`): due
 * 283 days after a service is the same clock time on the 283rd day there, whatever DST changes lie between.
 */
export function foldBreeding(
  records: readonly BreedingRecord[],
  times: SpeciesTimes,
  zone: string,
): StoredBreeding {
  const later = (at: number, days: number) => addLocalDays(at, days, zone);
  const gestation = times.gestation_days;
  const cycle = times.cycle_days;
  let s: StoredBreeding = { ...OPEN };
  for (const r of [...records].sort((a, b) => a.at - b.at)) {
    switch (r.type) {
      case 'heat':
        s = { ...OPEN, since: r.at, next_heat_at: later(r.at, cycle) };
        break;
      case 'service':
        s = {
          ...OPEN,
          state: 'bred',
          since: r.at,
          service_at: r.at,
          due_at: later(r.at, gestation),
          next_heat_at: later(r.at, cycle),
        };
        break;
      case 'pregnancy_check':
        if (r.result === 'pregnant') {
          const conceived = r.days_pregnant === undefined ? s.service_at : later(r.at, -r.days_pregnant);
          s = {
            ...s,
            state: 'pregnant',
            since: r.at,
            due_at: conceived === null ? null : later(conceived, gestation),
            next_heat_at: null,
          };
        } else if (r.result === 'empty') {
          const failed = s.service_at;
          s = {
            ...OPEN,
            since: r.at,
            next_heat_at: failed === null ? null : nextOnCycle(failed, r.at, cycle, zone),
          };
        }
        break;
      case 'birth':
        if (r.calving) s = { ...OPEN, state: 'fresh', since: r.at, fresh_until: later(r.at, FRESH_DAYS) };
        break;
      case 'abortion':
        s = { ...OPEN, since: r.at };
        break;
      case 'weaning':
        if (s.state === 'fresh') s = { ...OPEN, since: r.at };
        break;
    }
  }
  return { ...s, zone };
}

/** The state at `now`: fresh turns open once its days are past. */
export function breedingAt(stored: StoredBreeding, now: number): StoredBreeding {
  if (stored.state === 'fresh' && stored.fresh_until !== null && now >= stored.fresh_until) {
    return { ...OPEN, since: stored.fresh_until, zone: zoneOf(stored) };
  }
  return stored;
}

/**
 * When a female's pregnancy check is due, or null: she is bred (no check has confirmed or emptied her since
 * her service) and her service was PREGNANCY_CHECK_WINDOW days ago (35 to 60 of the farm's calendar days). The
 * answer is the day the window opened (service + 35 days). The one rule the brief's "pregnancy checks due" and the
 * Animal's `breeding.pregnancy_check_due` (the chute card) both read.
 */
export function pregnancyCheckDue(s: StoredBreeding, now: number): number | null {
  if (s.state !== 'bred' || s.service_at === null) return null;
  const days = localDaysBetween(s.service_at, now, zoneOf(s));
  if (days < PREGNANCY_CHECK_WINDOW.from_days || days > PREGNANCY_CHECK_WINDOW.to_days) return null;
  return addLocalDays(s.service_at, PREGNANCY_CHECK_WINDOW.from_days, zoneOf(s));
}

/** The farm's day of one of a stored state's instants, `YYYY-MM-DD` (null stays null). */
export function dayOf(ms: number | null, s: Pick<StoredBreeding, 'zone'>): string | null {
  return ms === null ? null : localDateText(ms, zoneOf(s));
}
