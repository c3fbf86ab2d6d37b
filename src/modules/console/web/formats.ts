/**
 * Numbers and days written in the reader's locale, as the herd book's pages write gains and dates; a module of
 * its own so that a page needing only these (the animal page) does not load the herd book's panels with them.
 */
import { reader } from './i18n.ts';

/** A number with exactly `digits` decimals in the reader's locale ("0.85", "0,85"), as gains are written. */
export function fixed(value: number, digits = 2): string {
  const options = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  try {
    return new Intl.NumberFormat(reader.locale, options).format(value);
  } catch {
    return new Intl.NumberFormat('en', options).format(value);
  }
}

export function dayOf(iso: string, timezone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    timeZone: timezone || undefined,
    month: 'short',
    day: 'numeric',
  };
  try {
    return new Intl.DateTimeFormat(reader.locale, options).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en', options).format(new Date(iso));
  }
}
