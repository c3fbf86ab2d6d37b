/**
 * An area field (a farm's, a paddock's): the API keeps acres; a person types hectares, or acres in US units.
 * Only the settings, farm and paddock forms load it.
 */
import { SQUARE_METRES_PER_ACRE } from '../../../domain/display-units.ts';
import { number } from './form.ts';
import { entered, shown, t, unitLabel } from './i18n.ts';

const HA_PER_ACRE = SQUARE_METRES_PER_ACRE / 10_000;

/** An area field's label in the reader's unit: "Area (ha)", or "Area (ac)" in US units. */
export function areaLabel(): string {
  return t('form.area', { unit: unitLabel('ha') });
}

/** The API's acres as an area field shows them: hectares, or acres in US units, to two decimals. */
export function areaFieldValue(acres: number | null | undefined): number | null {
  if (acres === null || acres === undefined) return null;
  return Math.round(shown(acres * HA_PER_ACRE, 'ha') * 100) / 100;
}

/** What an area field holds, in the acres the API takes (blank: null; not a number: sent as typed). */
export function areaFromField(data: FormData, name: string): number | null | undefined {
  const typed = number(data, name);
  if (typeof typed !== 'number' || !Number.isFinite(typed)) return typed;
  return Math.round((entered(typed, 'ha') / HA_PER_ACRE) * 10_000) / 10_000;
}
