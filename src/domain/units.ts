/**
 * The units the catalog's metrics are measured in, the other spellings of each, and the other units a
 * device may report a metric in (stored converted into the catalog's unit: modules/readings/units.ts, with
 * the factors from js-quantities, whose unit names `qty` gives). Plain data, so the console may import it.
 * Spellings are compared without case, spaces or a degree sign's variants ("DEG C", "degc", "℃").
 */

/** A unit as the catalog writes it, or another a device may use for the same quantity. */
export interface UnitSpelling {
  /** How the catalog and the readings API write it. */
  readonly unit: string;
  /** js-quantities' name of the unit. */
  readonly qty: string;
  /** Other ways devices write the same unit. */
  readonly spellings: readonly string[];
}

/** A catalog unit and the units converted into it. */
export interface CatalogUnit extends UnitSpelling {
  readonly alternatives: readonly UnitSpelling[];
}

/**
 * The catalog's units. A "%" metric is a share of 100: a device that reports a fraction of 1 says so with
 * `fraction` (or `ratio`), and 0.42 is stored as 42 %; a value sent with "%" (or no unit) is taken as a
 * percentage whatever its size, since 0.42 % is a real level (an almost empty bin).
 */
export const CATALOG_UNITS = Object.freeze([
  {
    unit: '°C',
    qty: 'tempC',
    spellings: ['C', 'degC', 'deg C', 'celsius', 'degrees C', 'degrees celsius', 'centigrade'],
    alternatives: [
      { unit: '°F', qty: 'tempF', spellings: ['F', 'degF', 'deg F', 'fahrenheit', 'degrees F'] },
      { unit: 'K', qty: 'tempK', spellings: ['kelvin', 'kelvins'] },
    ],
  },
  {
    unit: 'kg',
    qty: 'kg',
    spellings: ['kgs', 'kilogram', 'kilograms', 'kilo', 'kilos'],
    alternatives: [
      { unit: 'lb', qty: 'lb', spellings: ['lbs', 'pound', 'pounds'] },
      { unit: 'g', qty: 'g', spellings: ['gram', 'grams'] },
    ],
  },
  {
    unit: 'L',
    qty: 'L',
    spellings: ['l', 'liter', 'liters', 'litre', 'litres'],
    alternatives: [
      {
        unit: 'US gal',
        qty: 'gal',
        spellings: ['gal', 'gallon', 'gallons', 'US gallon', 'US gallons', 'usgal'],
      },
      { unit: 'mL', qty: 'ml', spellings: ['milliliter', 'milliliters', 'millilitre', 'millilitres'] },
    ],
  },
  {
    unit: 'L/min',
    qty: 'L/min',
    spellings: ['lpm', 'liters/min', 'litres/min', 'liters per minute', 'litres per minute'],
    alternatives: [
      { unit: 'US gal/min', qty: 'gal/min', spellings: ['gpm', 'gal/min'] },
      { unit: 'L/h', qty: 'L/h', spellings: ['lph', 'l/hr'] },
    ],
  },
  {
    unit: 'mm',
    qty: 'mm',
    spellings: ['millimeter', 'millimeters', 'millimetre', 'millimetres'],
    alternatives: [{ unit: 'in', qty: 'in', spellings: ['inch', 'inches', '"'] }],
  },
  {
    unit: 'km/h',
    qty: 'km/h',
    spellings: ['kph', 'kmh', 'km/hr', 'kmph', 'kilometers per hour', 'kilometres per hour'],
    alternatives: [
      { unit: 'mph', qty: 'mph', spellings: ['mi/h', 'miles per hour'] },
      { unit: 'm/s', qty: 'm/s', spellings: ['mps', 'meters per second', 'metres per second'] },
    ],
  },
  {
    unit: 'W',
    qty: 'W',
    spellings: ['watt', 'watts'],
    alternatives: [{ unit: 'kW', qty: 'kW', spellings: ['kilowatt', 'kilowatts'] }],
  },
  {
    unit: 'm',
    qty: 'm',
    spellings: ['meter', 'meters', 'metre', 'metres'],
    alternatives: [
      { unit: 'km', qty: 'km', spellings: ['kilometer', 'kilometers', 'kilometre', 'kilometres'] },
      { unit: 'ft', qty: 'ft', spellings: ['feet', 'foot'] },
    ],
  },
  {
    unit: 'min',
    qty: 'min',
    spellings: ['mins', 'minute', 'minutes'],
    alternatives: [
      { unit: 'h', qty: 'h', spellings: ['hr', 'hrs', 'hour', 'hours'] },
      { unit: 's', qty: 's', spellings: ['sec', 'secs', 'second', 'seconds'] },
    ],
  },
  {
    unit: '%',
    qty: 'percent',
    spellings: ['pct', 'percent', 'per cent'],
    // js-quantities' unitless quantity: a fraction of 1.
    alternatives: [{ unit: 'fraction', qty: '', spellings: ['ratio', 'fraction of 1'] }],
  },
  { unit: 'ppm', qty: 'ppm', spellings: ['parts per million'], alternatives: [] },
  { unit: 'birds', qty: '', spellings: ['bird'], alternatives: [] },
  { unit: 'index', qty: '', spellings: [], alternatives: [] },
] as const satisfies readonly CatalogUnit[]);

/** A unit the catalog measures a metric in; metrics.ts may only name these. */
export type CatalogUnitName = (typeof CATALOG_UNITS)[number]['unit'];

export const CATALOG_UNIT_BY_NAME: ReadonlyMap<string, CatalogUnit> = new Map(
  CATALOG_UNITS.map((u) => [u.unit, u]),
);

/** A spelling as compared: no case, no spaces, one degree sign (℃ and ℉ are °C and °F). */
export function unitKey(text: string): string {
  // The degree sign's look-alikes first: NFKC would make the ordinal º an o.
  return text.replace(/[º˚]/g, '°').normalize('NFKC').replace(/\s+/g, '').toLowerCase();
}

/** The units a metric measured in `unit` accepts: the catalog's first, then its alternatives. */
export function acceptedUnits(unit: string): string[] {
  const spec = CATALOG_UNIT_BY_NAME.get(unit);
  return spec ? [spec.unit, ...spec.alternatives.map((a) => a.unit)] : [unit];
}
