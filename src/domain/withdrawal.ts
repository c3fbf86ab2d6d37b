/**
 * Withdrawal periods: how long after a medicine an animal's meat, milk or eggs may not enter the food chain
 * (issue 46, docs/records.md). The statutory rules are rows here, one per jurisdiction, with their sources,
 * so a farm's jurisdiction is data; `computeWithdrawal` is the one pure function every treatment goes through.
 */
import { isPlainObject } from '../lib/json.ts';
import { FOODS, type Food, givesFood } from './species.ts';

export { FOODS, type Food };

/** A label's periods in days; a missing member: the label gives none for that food; 0: zero withdrawal. */
export type LabelPeriods = Partial<Record<`${Food}_days`, number>>;

/** What a medicine's label says: its periods, per species where they differ, and the species it is licensed for. */
export interface MedicineLabel {
  withdrawal: LabelPeriods;
  species_withdrawal?: Record<string, LabelPeriods> | null;
  /** Absent or null: licensed for every species. */
  licensed_species?: readonly string[] | null;
}

/** The cascade's numbers: the label's longest period × factor, else the fixed minimum per food. */
export interface CascadeNumbers {
  factor: number;
  meat_days: number;
  milk_days: number;
  eggs_days: number;
}

export interface JurisdictionRules extends CascadeNumbers {
  /** Days where the label's period for that food is zero (the off-label "zero is not zero" rule). */
  zero_label_days: Partial<Record<Food, number>>;
}

export const JURISDICTIONS = ['uk', 'eu', 'us', 'au', 'custom'] as const;
export type Jurisdiction = (typeof JURISDICTIONS)[number];

// EU Regulation (EU) 2019/6 article 115(1): the longest period in the SPC for that food × 1.5; 28 days for
// meat, 7 for milk and 10 for eggs where the product is not authorised for animals producing it; 1 day for
// milk where its period is zero.
const EU: JurisdictionRules = Object.freeze({
  factor: 1.5,
  meat_days: 28,
  milk_days: 7,
  eggs_days: 10,
  zero_label_days: Object.freeze({ milk: 1 }),
});

/**
 * The presets. `custom` starts from the EU numbers and takes the farm's own (`settings.withdrawal.cascade`).
 * The US (AMDUCA, with FARAD's advice) and Australia (APVMA: the prescribing vet sets the withholding
 * period) give no statutory cascade figure: the EU numbers stand in as the conservative default there, and
 * a vet's longer figure goes in `cascade`.
 */
export const WITHDRAWAL_PRESETS: Readonly<Record<Jurisdiction, JurisdictionRules>> = Object.freeze({
  // Great Britain: the Veterinary Medicines Regulations 2013, schedule 4 paragraph 2, as amended in 2024:
  // × 1.5; 28 days meat, 7 milk, 14 eggs; milk 1 day where the label's period is zero.
  uk: Object.freeze({ ...EU, eggs_days: 14 }),
  eu: EU,
  us: EU,
  au: EU,
  custom: EU,
});

/**
 * Organic standards (EU 2018/848 annex II part II 1.5.2.5, Soil Association, USDA NOP practice): twice the
 * period, and at least 48 hours, so a zero-day label still keeps an organic animal's food out for two days.
 */
export const ORGANIC_FACTOR = 2;
export const ORGANIC_MINIMUM_DAYS = 2;

/** A farm's withdrawal rules as stored in `settings.withdrawal` (every member optional there). */
export interface WithdrawalSettings {
  jurisdiction: Jurisdiction;
  organic: boolean;
  cascade?: Partial<CascadeNumbers>;
}

export const DEFAULT_JURISDICTION: Jurisdiction = 'uk';

/** The rules a farm's `settings.withdrawal` stands for: its preset, with the farm's own cascade numbers over it. */
export function withdrawalRulesOf(settings: unknown): { rules: JurisdictionRules; organic: boolean } {
  const stored = isPlainObject(settings) && isPlainObject(settings.withdrawal) ? settings.withdrawal : {};
  const jurisdiction = (JURISDICTIONS as readonly unknown[]).includes(stored.jurisdiction)
    ? (stored.jurisdiction as Jurisdiction)
    : DEFAULT_JURISDICTION;
  const cascade = isPlainObject(stored.cascade) ? (stored.cascade as Partial<CascadeNumbers>) : {};
  return { rules: { ...WITHDRAWAL_PRESETS[jurisdiction], ...cascade }, organic: stored.organic === true };
}

export type WithdrawalSettingsResult =
  | { ok: true; value: WithdrawalSettings }
  | { ok: false; param: string; message: string };

const CASCADE_MEMBERS = ['factor', 'meat_days', 'milk_days', 'eggs_days'] as const;
/** A cascade period longer than five years is a typo, not a rule. */
export const MAX_WITHDRAWAL_DAYS = 5 * 366;

/** Validates a farm's `settings.withdrawal` when it is saved; `custom` must give every cascade number. */
export function validateWithdrawalSettings(input: unknown): WithdrawalSettingsResult {
  const root = 'settings.withdrawal';
  const fail = (param: string, message: string) => ({ ok: false as const, param, message });
  if (!isPlainObject(input)) return fail(root, `${root} must be an object {jurisdiction, organic, cascade}.`);
  for (const key of Object.keys(input)) {
    if (!['jurisdiction', 'organic', 'cascade'].includes(key)) {
      return fail(`${root}.${key}`, `${root} has no member "${key}" (jurisdiction, organic, cascade).`);
    }
  }
  const jurisdiction = input.jurisdiction ?? DEFAULT_JURISDICTION;
  if (!(JURISDICTIONS as readonly unknown[]).includes(jurisdiction)) {
    return fail(`${root}.jurisdiction`, `${root}.jurisdiction must be one of ${JURISDICTIONS.join(', ')}.`);
  }
  const organic = input.organic ?? false;
  if (typeof organic !== 'boolean') return fail(`${root}.organic`, `${root}.organic must be true or false.`);
  const value: WithdrawalSettings = { jurisdiction: jurisdiction as Jurisdiction, organic };
  if (input.cascade !== undefined && input.cascade !== null) {
    const cascade = input.cascade;
    if (!isPlainObject(cascade)) return fail(`${root}.cascade`, `${root}.cascade must be an object.`);
    const numbers: Partial<CascadeNumbers> = {};
    for (const [key, n] of Object.entries(cascade)) {
      const param = `${root}.cascade.${key}`;
      if (!(CASCADE_MEMBERS as readonly string[]).includes(key)) {
        return fail(param, `${root}.cascade has no member "${key}" (${CASCADE_MEMBERS.join(', ')}).`);
      }
      const factor = key === 'factor';
      if (
        typeof n !== 'number' ||
        !Number.isFinite(n) ||
        (factor ? n < 1 || n > 10 : n < 0 || n > MAX_WITHDRAWAL_DAYS)
      ) {
        return fail(
          param,
          factor
            ? `${param} must be a number from 1 to 10.`
            : `${param} must be days, 0 to ${MAX_WITHDRAWAL_DAYS}.`,
        );
      }
      numbers[key as keyof CascadeNumbers] = n;
    }
    value.cascade = numbers;
  }
  if (value.jurisdiction === 'custom') {
    const missing = CASCADE_MEMBERS.find((m) => value.cascade?.[m] === undefined);
    if (missing) {
      return fail(
        `${root}.cascade.${missing}`,
        `A custom jurisdiction gives every cascade number; ${missing} is missing.`,
      );
    }
  }
  return { ok: true, value };
}

export const WITHDRAWAL_RULES = ['label', 'cascade', 'cascade_minimum'] as const;
export type WithdrawalRule = (typeof WITHDRAWAL_RULES)[number];

/** Why one food's withdrawal ends when it does. */
export interface FoodWithdrawal {
  food: Food;
  /** Epoch ms the withdrawal ends; the last dose's time for a zero period. */
  until: number;
  /** Whole days after the last dose. */
  days: number;
  /** label: the label's period; cascade: the label's longest × factor; cascade_minimum: the fixed minimum. */
  rule: WithdrawalRule;
  /** Doubled for organic. */
  organic: boolean;
}

export interface WithdrawalInput {
  label: MedicineLabel;
  species: string;
  rules: JurisdictionRules;
  /** The farm is organic, or the animal is (`fields.organic === true`). */
  organic: boolean;
  /** When the last dose of the course is (or was) given, epoch ms. */
  lastDoseAt: number;
}

const DAY_MS = 86_400_000;

/** When a course's last dose is given: n doses every h hours end at at + (n−1)·h. */
export function lastDoseAt(
  at: number,
  course: { doses: number; every_hours: number } | null | undefined,
): number {
  if (!course) return at;
  return at + (course.doses - 1) * course.every_hours * 3_600_000;
}

export function isLicensedFor(label: MedicineLabel, species: string): boolean {
  const licensed = label.licensed_species;
  if (licensed === undefined || licensed === null) return true;
  const wanted = species.toLowerCase();
  return licensed.some((s) => s.toLowerCase() === wanted);
}

function speciesPeriods(label: MedicineLabel, species: string): LabelPeriods | undefined {
  const wanted = species.toLowerCase();
  const entry = Object.entries(label.species_withdrawal ?? {}).find(([s]) => s.toLowerCase() === wanted);
  return entry?.[1];
}

/** The label's period for this food and species (the species' own where the label gives one). */
function labelPeriod(label: MedicineLabel, species: string, food: Food): number | undefined {
  return speciesPeriods(label, species)?.[`${food}_days`] ?? label.withdrawal[`${food}_days`];
}

/** The label's longest period for this food across every species it names, or undefined when it gives none. */
function longestPeriod(label: MedicineLabel, food: Food): number | undefined {
  const periods = [label.withdrawal, ...Object.values(label.species_withdrawal ?? {})]
    .map((p) => p[`${food}_days`])
    .filter((d): d is number => d !== undefined);
  return periods.length === 0 ? undefined : Math.max(...periods);
}

/** Whole days, rounded up (a 1.5-day period is 2 days); the epsilon keeps 7 × 1.5 × … from rounding 10.5000001 up. */
function wholeDays(days: number): number {
  return Math.max(0, Math.ceil(days - 1e-9));
}

/**
 * Each food's withdrawal after a treatment (null members: no withdrawal for that food: the medicine is
 * licensed for the species and its label gives none). Licensed: the label's period. Off-label (the species
 * is missing from `licensed_species`): the cascade: the label's longest period for that food across species
 * × factor (a zero period: the jurisdiction's zero-label days), or the fixed minimum where the label has
 * none. Organic doubles it, to at least two days. Whole days, counted from the last dose. A food the species
 * does not give (domain/species.ts) has none.
 */
export function computeWithdrawal(input: WithdrawalInput): Record<Food, FoodWithdrawal | null> {
  const { label, species, rules } = input;
  const licensed = isLicensedFor(label, species);
  const result = { meat: null, milk: null, eggs: null } as Record<Food, FoodWithdrawal | null>;
  for (const food of FOODS) {
    // A food the species does not give has no withdrawal: no eggs from a ewe, no milk from a hen.
    if (!givesFood(species, food)) continue;
    let raw: number;
    let rule: WithdrawalRule;
    if (licensed) {
      const period = labelPeriod(label, species, food);
      if (period === undefined) continue;
      raw = period;
      rule = 'label';
    } else {
      const longest = longestPeriod(label, food);
      if (longest === undefined) {
        raw = rules[`${food}_days`];
        rule = 'cascade_minimum';
      } else if (longest === 0 && rules.zero_label_days[food] !== undefined) {
        raw = rules.zero_label_days[food];
        rule = 'cascade_minimum';
      } else {
        raw = longest * rules.factor;
        rule = 'cascade';
      }
    }
    const days = input.organic
      ? Math.max(ORGANIC_MINIMUM_DAYS, wholeDays(raw * ORGANIC_FACTOR))
      : wholeDays(raw);
    result[food] = { food, until: input.lastDoseAt + days * DAY_MS, days, rule, organic: input.organic };
  }
  return result;
}
