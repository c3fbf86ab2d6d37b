/**
 * Weights and gain (issue 47, docs/records.md "Weights"): where a weight comes from, what weight a species
 * can have, how far a projection may reach, and the farm's settings for the brief. Facts, no framework.
 */
import { isPlainObject } from '../lib/json.ts';
import { knownSpeciesOf } from './species.ts';

/** The event type every weight is logged as (the spec's `weight` event, `data.kg`). */
export const WEIGHT_EVENT = 'weight';

/**
 * Where a weight came from: `event` a client's `weight` event, `scale` a scale head's `weight.kg` reading
 * matched by EID (ingest), `session` a weigh-session import, `chute` the chute page or `record_weight`,
 * `birth` a birth weight logged with the offspring (modules/breeding).
 */
export const WEIGHT_SOURCES = ['event', 'scale', 'session', 'chute', 'birth'] as const;
export type WeightSource = (typeof WEIGHT_SOURCES)[number];

/** A weight event's source: as its data names it, else a scale's when a device wrote it, else `event`. */
export function weightSourceOf(data: Record<string, unknown>): WeightSource {
  const named = data.source;
  if (typeof named === 'string' && (WEIGHT_SOURCES as readonly string[]).includes(named)) {
    return named as WeightSource;
  }
  return typeof data.device_id === 'string' ? 'scale' : 'event';
}

/** A weight event's kilograms, or null when its data holds no usable weight (a free-form event). */
export function weightKgOf(data: Record<string, unknown>): number | null {
  const kg = data.kg;
  return typeof kg === 'number' && Number.isFinite(kg) && kg > 0 ? kg : null;
}

/** A projection to today never reaches further than this past the latest weight (issue 47). */
export const MAX_PROJECTION_DAYS = 90;

/**
 * Two weights closer than this give no gain (kg/day over minutes is noise: a beast weighed twice in one
 * session); the later one's gain is null.
 */
export const MIN_GAIN_INTERVAL_DAYS = 1;

/**
 * The weights a live animal of each species can have, in kg: a session row outside them is refused as a
 * misread (a scale not zeroed, a decimal lost, pounds read as kilograms). Wide on purpose: a newborn to the
 * heaviest of the breed. Sources: breed societies' published records and birth weights (the heaviest
 * cattle ~1,700 kg, Shire horses ~1,200 kg, boars ~450 kg, rams ~180 kg).
 */
export const SPECIES_WEIGHT_KG: Readonly<Record<string, { min: number; max: number }>> = Object.freeze({
  cattle: { min: 10, max: 1800 },
  sheep: { min: 1, max: 200 },
  goats: { min: 1, max: 180 },
  pigs: { min: 0.5, max: 500 },
  horses: { min: 20, max: 1500 },
  deer: { min: 2, max: 400 },
  alpacas: { min: 3, max: 120 },
  llamas: { min: 5, max: 250 },
});

/** Any species not in the table. */
export const OTHER_SPECIES_WEIGHT_KG = { min: 0.01, max: 2000 } as const;

/** The bounds for a species as animals name it (`Cattle`, `cow`, `ovine`…: domain/species.ts). */
export function speciesWeightBounds(species: string): { min: number; max: number } {
  const key = knownSpeciesOf(species) ?? species.trim().toLowerCase();
  return SPECIES_WEIGHT_KG[key] ?? OTHER_SPECIES_WEIGHT_KG;
}

/** Why a weight is impossible for the species, or null when it is possible. */
export function impossibleWeight(kg: number, species: string): string | null {
  const { min, max } = speciesWeightBounds(species);
  if (kg < min || kg > max) return `${kg} kg is not a possible weight for ${species} (${min} to ${max} kg).`;
  return null;
}

/** The farm's weight settings (`settings.weights`), each optional. */
export interface WeightSettings {
  /** Animals whose latest gain is below this (kg/day) are named in the brief. */
  min_adg_kg_per_day?: number;
  /** Groups not weighed for longer than this (days) are named in the brief. */
  weigh_interval_days?: number;
}

/** When a farm sets no `weigh_interval_days`: weighing every two months is common for growing stock. */
export const DEFAULT_WEIGH_INTERVAL_DAYS = 60;

type Result = { ok: true; value: WeightSettings } | { ok: false; param: string; message: string };

/** Checks `settings.weights` as a whole; the message names the member. */
export function validateWeightSettings(input: unknown): Result {
  const root = 'settings.weights';
  const fail = (param: string, message: string) => ({ ok: false as const, param, message });
  if (!isPlainObject(input)) {
    return fail(root, `${root} must be an object {min_adg_kg_per_day, weigh_interval_days}.`);
  }
  const value: WeightSettings = {};
  for (const [key, n] of Object.entries(input)) {
    const param = `${root}.${key}`;
    if (key === 'min_adg_kg_per_day') {
      if (typeof n !== 'number' || !Number.isFinite(n) || n < -5 || n > 5) {
        return fail(param, `${param} must be kg per day, -5 to 5.`);
      }
      value.min_adg_kg_per_day = n;
    } else if (key === 'weigh_interval_days') {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 730) {
        return fail(param, `${param} must be whole days, 1 to 730.`);
      }
      value.weigh_interval_days = n;
    } else {
      return fail(param, `${root} has no member "${key}" (min_adg_kg_per_day, weigh_interval_days).`);
    }
  }
  return { ok: true, value };
}

/** The farm's weight settings as stored (validated on write), defaults filled in. */
export function weightSettingsOf(settings: Record<string, unknown>): {
  min_adg_kg_per_day: number | null;
  weigh_interval_days: number;
} {
  const checked = validateWeightSettings(settings.weights ?? {});
  const value = checked.ok ? checked.value : {};
  return {
    min_adg_kg_per_day: value.min_adg_kg_per_day ?? null,
    weigh_interval_days: value.weigh_interval_days ?? DEFAULT_WEIGH_INTERVAL_DAYS,
  };
}
