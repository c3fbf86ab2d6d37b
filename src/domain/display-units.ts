/**
 * How a person reads quantities (issue 45): metric or US customary. Storage and the API stay in the
 * catalog's units (units.ts); this module converts a catalog value into the person's unit for display, and a
 * value typed in the person's unit back into the catalog's, and formats it with `Intl.NumberFormat`'s unit
 * style where Intl knows the unit. Pure and framework-free: the server's notifications and the console both
 * import it.
 */

/** The unit systems a person may choose (PATCH /v1/me `units`). */
export const UNIT_SYSTEMS = ['metric', 'us'] as const;
export type UnitSystem = (typeof UNIT_SYSTEMS)[number];

/** The languages the console and notifications speak (PATCH /v1/me `language`). */
export const LANGUAGES = ['en', 'es'] as const;
export type LanguageName = (typeof LANGUAGES)[number];

/** How to show one catalog unit in one system. */
interface Shown {
  /** The unit as written after a number when Intl has no name for it, and as a field's label. */
  readonly unit: string;
  /** The label for a Spanish reader, where it differs ("m/día"). */
  readonly es?: string;
  /** Intl.NumberFormat's unit identifier (a sanctioned unit or "a-per-b"), when it has one. */
  readonly intl: string | null;
  /** The catalog value in this unit. */
  readonly from: (value: number) => number;
  /** A value in this unit, in the catalog's. */
  readonly to: (value: number) => number;
  /** Fraction digits shown at most. */
  readonly digits: number;
}

const same = (v: number) => v;
const times = (factor: number) => (v: number) => v * factor;
const over = (factor: number) => (v: number) => v / factor;

/** Exact or standard factors (NIST SP 811): 1 lb = 0.45359237 kg, 1 US gal = 3.785411784 L, 1 in = 25.4 mm. */
const KG_PER_LB = 0.45359237;
const L_PER_GAL = 3.785411784;
const MM_PER_IN = 25.4;
const M_PER_FT = 0.3048;
const KM_PER_MI = 1.609344;
/** The international acre, in square metres (a paddock's `acres` and the map's areas convert with it). */
export const SQUARE_METRES_PER_ACRE = 4046.8564224;
const HA_PER_ACRE = SQUARE_METRES_PER_ACRE / 10_000;

function pair(
  metric: { unit: string; es?: string; intl: string | null; digits?: number },
  us: { unit: string; es?: string; intl: string | null; factor: number; digits?: number } | null,
): Record<UnitSystem, Shown> {
  const m: Shown = { ...metric, from: same, to: same, digits: metric.digits ?? 1 };
  if (!us) return { metric: m, us: m };
  return {
    metric: m,
    // `factor`: catalog units per shown unit.
    us: { ...us, from: over(us.factor), to: times(us.factor), digits: us.digits ?? 1 },
  };
}

/** Each catalog unit (and the areas and distances the console shows) in both systems. */
export const DISPLAY_UNITS: Readonly<Record<string, Record<UnitSystem, Shown>>> = Object.freeze({
  kg: pair({ unit: 'kg', intl: 'kilogram' }, { unit: 'lb', intl: 'pound', factor: KG_PER_LB, digits: 0 }),
  '°C': {
    metric: { unit: '°C', intl: 'celsius', from: same, to: same, digits: 1 },
    us: {
      unit: '°F',
      intl: 'fahrenheit',
      from: (c: number) => (c * 9) / 5 + 32,
      to: (f: number) => ((f - 32) * 5) / 9,
      digits: 1,
    },
  },
  L: pair({ unit: 'L', intl: 'liter' }, { unit: 'gal', intl: 'gallon', factor: L_PER_GAL }),
  'L/min': pair(
    { unit: 'L/min', intl: 'liter-per-minute' },
    { unit: 'gal/min', intl: 'gallon-per-minute', factor: L_PER_GAL },
  ),
  mm: pair({ unit: 'mm', intl: 'millimeter' }, { unit: 'in', intl: 'inch', factor: MM_PER_IN, digits: 2 }),
  m: pair({ unit: 'm', intl: 'meter' }, { unit: 'ft', intl: 'foot', factor: M_PER_FT, digits: 0 }),
  km: pair({ unit: 'km', intl: 'kilometer' }, { unit: 'mi', intl: 'mile', factor: KM_PER_MI }),
  'km/h': pair(
    { unit: 'km/h', intl: 'kilometer-per-hour' },
    { unit: 'mph', intl: 'mile-per-hour', factor: KM_PER_MI },
  ),
  ha: pair(
    { unit: 'ha', intl: 'hectare', digits: 2 },
    { unit: 'ac', intl: 'acre', factor: HA_PER_ACRE, digits: 2 },
  ),
  'm/day': pair(
    { unit: 'm/day', es: 'm/día', intl: 'meter-per-day', digits: 0 },
    { unit: 'ft/day', es: 'ft/día', intl: 'foot-per-day', factor: M_PER_FT, digits: 0 },
  ),
  'kg/day': pair(
    { unit: 'kg/day', es: 'kg/día', intl: 'kilogram-per-day', digits: 2 },
    { unit: 'lb/day', es: 'lb/día', intl: 'pound-per-day', factor: KG_PER_LB, digits: 2 },
  ),
});

/** Catalog units that are words (ppm, %, W stay symbols): one and other by language (both say one for 1 only). */
const UNIT_WORDS: Readonly<Record<string, Record<LanguageName, readonly [string, string]>>> = {
  birds: { en: ['bird', 'birds'], es: ['ave', 'aves'] },
  index: { en: ['index', 'index'], es: ['índice', 'índice'] },
};

/** The unit a catalog unit is shown in for this system (else the catalog's own; a word in the language's). */
export function displayUnit(unit: string, system: UnitSystem, language: LanguageName = 'en'): string {
  const shown = DISPLAY_UNITS[unit]?.[system];
  if (shown) return (language === 'es' ? shown.es : undefined) ?? shown.unit;
  return UNIT_WORDS[unit]?.[language][1] ?? unit;
}

/** A catalog value in the person's unit. */
export function toDisplay(value: number, unit: string, system: UnitSystem): number {
  const shown = DISPLAY_UNITS[unit]?.[system];
  return shown ? shown.from(value) : value;
}

/** A value typed in the person's unit, in the catalog's (what an entry form sends). */
export function fromDisplay(value: number, unit: string, system: UnitSystem): number {
  const shown = DISPLAY_UNITS[unit]?.[system];
  return shown ? shown.to(value) : value;
}

const formatters = new Map<string, Intl.NumberFormat>();

function formatter(locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options)}`;
  let made = formatters.get(key);
  if (!made) {
    try {
      made = new Intl.NumberFormat(locale, options);
    } catch {
      // A locale or unit this Intl refuses: English, and the unit written out by the caller.
      made = new Intl.NumberFormat('en', { maximumFractionDigits: options.maximumFractionDigits ?? 1 });
    }
    formatters.set(key, made);
  }
  return made;
}

/** A plain number in the locale ("1,234.5", "1.234,5"). */
export function formatNumber(value: number, locale: string, digits = 1): string {
  return formatter(locale, { maximumFractionDigits: digits }).format(value);
}

/** A number as typed in this locale ("20,5" in Spanish is 20.5), or NaN. */
export function parseTypedNumber(typed: string, locale: string): number {
  let text = typed.replace(/\s/g, '');
  const comma = new Intl.NumberFormat(locale).format(1.5).includes(',');
  const [group, mark] = comma ? ['.', ','] : [',', '.'];
  if (new RegExp(`^-?\\d{1,3}(\\${group}\\d{3})+(\\${mark}\\d+)?$`).test(text))
    text = text.replaceAll(group, '');
  if (comma) text = text.replace(/^(-?\d*),(\d+)$/, '$1.$2');
  return /^-?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * A catalog value as the person reads it: converted, rounded and written with its unit in their locale
 * ("412 kg", "908 lb", "37,4 °F"). Units Intl cannot name follow the number: symbols (ppm), words ("12 aves").
 */
export function formatQuantity(
  value: number,
  unit: string | null,
  view: { units: UnitSystem; locale: string },
  digits?: number,
): string {
  const shown = unit ? DISPLAY_UNITS[unit]?.[view.units] : undefined;
  const converted = shown ? shown.from(value) : value;
  const size = Math.abs(converted);
  // Below 1, two significant digits (a hen's 0.15 L a day is not "0 L"); Intl takes 20 at most.
  const small = size < 1 ? 1 - Math.floor(Math.log10(size)) : 0;
  const maximumFractionDigits = Math.min(20, Math.max(digits ?? shown?.digits ?? 1, small));
  if (!shown) {
    const number = formatNumber(value, view.locale, maximumFractionDigits);
    if (!unit) return number;
    const words = UNIT_WORDS[unit]?.[languageForLocale(view.locale)];
    if (words) return `${number} ${words[value === 1 ? 0 : 1]}`;
    // "45%" and "12°" as people write them (a percentage's own spacing is the locale's business elsewhere).
    return unit === '%' || unit === '°' ? `${number}${unit}` : `${number} ${unit}`;
  }
  if (shown.intl) {
    const made = formatter(view.locale, {
      style: 'unit',
      unit: shown.intl,
      unitDisplay: 'short',
      maximumFractionDigits,
    });
    if (made.resolvedOptions().style === 'unit') return made.format(converted);
  }
  return `${formatNumber(converted, view.locale, maximumFractionDigits)} ${shown.unit}`;
}

/**
 * A length measured on the map (a line drawn, a paddock's perimeter) as the person reads it: metres below a
 * kilometre and kilometres above ("320 m", "1.25 km"), or feet below a mile and miles above ("1,050 ft",
 * "1.25 mi").
 */
export function formatLength(meters: number, view: { units: UnitSystem; locale: string }): string {
  const long = view.units === 'us' ? KM_PER_MI * 1000 : 1000;
  return meters < long ? formatQuantity(meters, 'm', view, 0) : formatQuantity(meters / 1000, 'km', view, 2);
}

/** An area measured on the map as the person reads it: hectares or acres, two decimals at most. */
export function formatArea(squareMeters: number, view: { units: UnitSystem; locale: string }): string {
  return formatQuantity(squareMeters / 10_000, 'ha', view, 2);
}

/**
 * The catalog units a text may name after a number, longest first (so "km/h" wins over "km"); a percentage
 * and ppm are not converted, only written in the reader's locale ("12,9%").
 */
const PROSE_UNITS = [...Object.keys(DISPLAY_UNITS), '%', 'ppm'].sort((a, b) => b.length - a.length);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const QUANTITY = new RegExp(
  `(-?\\d+(?:\\.\\d+)?)\\s?(${PROSE_UNITS.map(escapeRegExp).join('|')})(?![\\p{L}/])`,
  'gu',
);

/**
 * A sentence the server wrote in catalog units (an alert's reason: "Water temperature 3 °C at House 2"),
 * with each quantity in the person's units and locale. Metric readers get the numbers in their locale only.
 */
export function localizeQuantities(text: string, view: { units: UnitSystem; locale: string }): string {
  return text.replace(QUANTITY, (_all, number: string, unit: string) =>
    formatQuantity(Number(number), unit, view),
  );
}

/** The unit system a browser's locale suggests: the United States (and Liberia, Myanmar) read US units. */
export function unitsForLocale(locale: string | undefined): UnitSystem {
  const region = regionOf(locale);
  return region === 'US' || region === 'LR' || region === 'MM' ? 'us' : 'metric';
}

/** The language a browser's locale suggests: Spanish for any `es…`, English otherwise. */
export function languageForLocale(locale: string | undefined): LanguageName {
  const tag = canonical(locale);
  return tag?.toLowerCase().startsWith('es') ? 'es' : 'en';
}

/** The locale Intl formats with for a person: their browser's when it speaks their language, else the language. */
export function localeFor(language: LanguageName, browser?: string): string {
  const tag = canonical(browser);
  return tag?.toLowerCase().startsWith(language) ? tag : language;
}

function canonical(locale: string | undefined): string | undefined {
  if (!locale) return undefined;
  try {
    return Intl.getCanonicalLocales(locale.replace(/[@.].*$/, '').replaceAll('_', '-'))[0];
  } catch {
    return undefined;
  }
}

function regionOf(locale: string | undefined): string | undefined {
  const tag = canonical(locale);
  if (!tag) return undefined;
  try {
    return new Intl.Locale(tag).region;
  } catch {
    return undefined;
  }
}
