/**
 * A reading of a catalog metric in the catalog's unit: another spelling of that unit is that unit, a unit
 * the registry accepts for it (src/domain/units.ts) is converted with js-quantities' factors, anything else
 * is refused. Readings of metrics the catalog does not know keep the unit they were sent with.
 */
import Qty from 'js-quantities';
import { METRIC_BY_NAME } from '../../domain/metrics.ts';
import { acceptedUnits, CATALOG_UNIT_BY_NAME, type CatalogUnit, unitKey } from '../../domain/units.ts';

/** What a sent unit means for a catalog unit: the unit itself, or an alternative with its converter. */
type Meaning = { convert: null } | { convert: (value: number) => number };

/** Per catalog unit, every spelling (as compared) of it and of its alternatives. Built on first use. */
const meanings = new Map<string, ReadonlyMap<string, Meaning>>();

function meaningsOf(spec: CatalogUnit): ReadonlyMap<string, Meaning> {
  let table = meanings.get(spec.unit);
  if (table) return table;
  const built = new Map<string, Meaning>();
  for (const spelling of [spec.unit, ...spec.spellings]) built.set(unitKey(spelling), { convert: null });
  for (const alt of spec.alternatives) {
    // swiftConverter precomputes the factor (and offset, for temperatures) once.
    const convert = Qty.swiftConverter(alt.qty, spec.qty) as (value: number) => number;
    for (const spelling of [alt.unit, ...alt.spellings]) built.set(unitKey(spelling), { convert });
  }
  table = built;
  meanings.set(spec.unit, table);
  return table;
}

/** 12 significant digits: drops the binary noise of a factor (0.9999999999999998 L/min is 1). */
function tidy(value: number): number {
  return Number(value.toPrecision(12));
}

export type InCatalogUnit =
  | { ok: true; value: number; unit: string | null; raw: { value: number; unit: string } | null }
  | { ok: false; accepted: string[]; unit: string };

/**
 * The reading's value and unit as stored: for a catalog metric, in the catalog's unit (no unit: the
 * catalog's; `raw` holds what was sent when it was converted); for any other metric, as sent.
 */
export function inCatalogUnit(metric: string, value: number, sent: string | undefined): InCatalogUnit {
  const known = METRIC_BY_NAME.get(metric);
  if (!known) return { ok: true, value, unit: sent ?? null, raw: null };
  // Most devices send the catalog's unit as the catalog writes it: no spelling to look up.
  if (sent === undefined || sent === known.unit) return { ok: true, value, unit: known.unit, raw: null };
  const spec = CATALOG_UNIT_BY_NAME.get(known.unit);
  const meaning = spec
    ? meaningsOf(spec).get(unitKey(sent))
    : unitKey(sent) === unitKey(known.unit)
      ? { convert: null }
      : undefined;
  if (!meaning) return { ok: false, accepted: acceptedUnits(known.unit), unit: known.unit };
  if (meaning.convert === null) return { ok: true, value, unit: known.unit, raw: null };
  let converted: number;
  try {
    converted = tidy(meaning.convert(value));
  } catch {
    // js-quantities refuses a temperature below absolute zero: no value in the catalog's unit either.
    converted = Number.NaN;
  }
  return { ok: true, value: converted, unit: known.unit, raw: { value, unit: sent } };
}
