/**
 * The words and units the console speaks to the signed-in person (issue 45, docs/console.md): one message
 * catalog (web/messages/en.ts, the source; es.ts loaded only for a Spanish reader), chosen by the person's
 * `language` (PATCH /v1/me), and quantities in their `units` through src/domain/display-units.ts, the
 * module the server's notifications use too. Before sign-in the browser's language proposes both. Dates
 * and numbers follow the person's locale via Intl; a browser language Intl refuses never breaks a page.
 */
import {
  displayUnit,
  formatNumber,
  formatQuantity,
  fromDisplay,
  type LanguageName,
  languageForLocale,
  localeFor,
  localizeQuantities,
  toDisplay,
  type UnitSystem,
  unitsForLocale,
} from '../../../domain/display-units.ts';
import { formatMessage, type Message, type MessageParams } from '../../../lib/message-format.ts';
import { EN, type MessageKey } from './messages/en.ts';

export type { MessageKey } from './messages/en.ts';

export interface Reader {
  language: LanguageName;
  units: UnitSystem;
  /** The locale Intl formats with: the browser's when it speaks the person's language, else the language. */
  locale: string;
}

// No DOM types here (the server's tests import this module): the browser's globals, looked up.
const browser = globalThis as {
  navigator?: { language?: string };
  document?: { documentElement: { lang: string } };
};

function browserLanguage(): string | undefined {
  return browser.navigator?.language;
}

/** What the browser proposes before anyone signs in (and at sign-up). */
export function proposedReader(): Pick<Reader, 'language' | 'units'> {
  const browser = browserLanguage();
  return { language: languageForLocale(browser), units: unitsForLocale(browser) };
}

const proposed = proposedReader();
export const reader: Reader = { ...proposed, locale: localeFor(proposed.language, browserLanguage()) };

let catalog: Readonly<Record<MessageKey, Message>> = EN;
let apiErrors: Readonly<Record<string, Message>> | null = null;
const listeners = new Set<() => void>();

/** Calls `listener` when the language or units change (web/reader-hook.ts re-renders with it). */
export function onReaderChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Switches the console to this language and these units (after sign-in, or a change on the Account page). */
export async function setReader(next: Pick<Reader, 'language' | 'units'>): Promise<void> {
  const spanish = next.language === 'es' ? await import('./messages/es.ts') : null;
  const words = spanish?.ES ?? (EN as Record<MessageKey, Message>);
  const same = next.language === reader.language && next.units === reader.units && words === catalog;
  catalog = words;
  apiErrors = spanish?.ES_API_ERRORS ?? null;
  Object.assign(reader, next, { locale: localeFor(next.language, browserLanguage()) });
  if (browser.document) browser.document.documentElement.lang = next.language;
  if (!same) for (const listener of listeners) listener();
}

/** A message of the catalog in the reader's language, its placeholders filled. */
export function t(key: MessageKey, params?: MessageParams): string {
  return formatMessage(reader.locale, catalog[key] ?? EN[key], params);
}

/** An API error in the reader's words by its code (naming `field`), null in English (the server's words). */
export function apiErrorText(code: string, field?: string): string | null {
  const words = apiErrors;
  if (!words || !Object.hasOwn(words, code)) return null;
  return formatMessage(reader.locale, (field && words[`${code}.field`]) || (words[code] as Message), {
    field,
  });
}

/** A page's own words, looked up in the reader's language (see `words`). */
export type Words<K extends string> = (key: K, params?: MessageParams) => string;

/**
 * A page's own catalog (web/messages/<page>.ts exports `EN` and `ES` with the same keys), so a page's words
 * load with the page and not on every page. Keys are short (`title`, `empty`); the shell's and the shared
 * pieces' words stay in messages/en.ts. Both languages load with the page: a page's Spanish is a few hundred
 * bytes, and switching language on the Account page then needs no load.
 */
export function words<K extends string>(
  en: Readonly<Record<K, Message>>,
  es: Readonly<Record<K, Message>>,
): Words<K> {
  return (key, params) =>
    formatMessage(reader.locale, (reader.language === 'es' ? es[key] : undefined) ?? en[key], params);
}

/** A catalog quantity in the reader's units and locale ("412 kg", "908 lb"); '—' for none. */
export function qty(value: number | null | undefined, unit?: string | null, digits?: number): string {
  if (value === null || value === undefined) return '—';
  return formatQuantity(value, unit || null, reader, digits);
}

/** A number in the reader's locale. */
export function num(value: number, digits = 1): string {
  return formatNumber(value, reader.locale, digits);
}

/** The unit the reader sees for a catalog unit ("lb" for kg in US units). */
export function unitLabel(unit: string): string {
  return displayUnit(unit, reader.units, reader.language);
}

/** A catalog value in the reader's unit (an entry form's starting value, a chart's points). */
export function shown(value: number, unit: string): number {
  return toDisplay(value, unit, reader.units);
}

/** A value the reader typed in their unit, in the catalog's unit the API takes. */
export function entered(value: number, unit: string): number {
  return fromDisplay(value, unit, reader.units);
}

/** A sentence the server wrote in catalog units (an alert's reason), in the reader's units. */
export function inReaderUnits(text: string): string {
  return localizeQuantities(text, reader);
}

/** A page's name in the reader's language (CONSOLE_PAGES' `page`), its English title when it has no key. */
export function pageTitle(page: { page: string; title: string }): string {
  const key = `nav.${page.page}`;
  return key in EN ? t(key as MessageKey) : page.title;
}

// A Spanish browser reads the sign-in page in Spanish: its catalog loads at once.
if (proposed.language !== 'en') void setReader(proposed);

/** A number with exactly `digits` decimals in the reader's locale ("0.85", "0,85"), as gains are written. */
export function fixed(value: number, digits = 2): string {
  const options = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  try {
    return new Intl.NumberFormat(reader.locale, options).format(value);
  } catch {
    return new Intl.NumberFormat('en', options).format(value);
  }
}

/**
 * A translated sentence with markup inside it (a link, a console's label in bold): `sentence` is given a mark
 * for each placeholder (`w('key', { ...params, ...marks })`), and each node goes where the language placed
 * it. Returns the parts, for a template: `${withNodes({ link: html`<a …>…</a>` }, (m) => w('tagged', m))}`.
 */
export function withNodes(
  nodes: Readonly<Record<string, unknown>>,
  sentence: (marks: Record<string, string>) => string,
): unknown[] {
  const names = Object.keys(nodes);
  // Private-use characters: never in a catalog's text.
  const marks = Object.fromEntries(names.map((name, i) => [name, String.fromCharCode(0xe000 + i)]));
  const parts: unknown[] = [];
  let text = '';
  for (const ch of sentence(marks)) {
    const i = ch.charCodeAt(0) - 0xe000;
    if (i >= 0 && i < names.length) {
      parts.push(text, nodes[names[i] as string]);
      text = '';
    } else text += ch;
  }
  parts.push(text);
  return parts;
}

/** The console's clock, 24-hour in every locale ("14:05"): `farmTime`, the offline bar, the charts. */
export const CLOCK = {
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
} as const satisfies Intl.DateTimeFormatOptions;

/** A time as the console writes it: "Nov 29, 14:05". */
export const MOMENT = {
  month: 'short',
  day: 'numeric',
  ...CLOCK,
} as const satisfies Intl.DateTimeFormatOptions;

/** "a, b and c" ("a, b y c") in the reader's language. */
export function listOf(items: readonly string[]): string {
  try {
    return new Intl.ListFormat(reader.locale, { type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

/** A calendar date ("2024-03-24", or the date of a timestamp) as "Mar 24, 2024" ("24 mar 2024"). */
export function dateOf(date: string): string {
  const at = new Date(`${date.slice(0, 10)}T12:00:00Z`);
  if (Number.isNaN(at.getTime())) return date;
  const options: Intl.DateTimeFormatOptions = { timeZone: 'UTC', dateStyle: 'medium' };
  try {
    return new Intl.DateTimeFormat(reader.locale, options).format(at);
  } catch {
    return new Intl.DateTimeFormat('en', options).format(at);
  }
}

/** An instant as "Dec 1, 16:15", in `timezone` (the browser's when none). */
export function momentOf(iso: string, timezone: string | null | undefined): string {
  const options: Intl.DateTimeFormatOptions = { timeZone: timezone || undefined, ...MOMENT };
  try {
    return new Intl.DateTimeFormat(reader.locale, options).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en', options).format(new Date(iso));
  }
}

/** A day as "Nov 29" ("29 nov"; with its year when not this one), in `timezone`. */
export function dayOf(iso: string, timezone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    timeZone: timezone || undefined,
    month: 'short',
    day: 'numeric',
  };
  if (new Date(iso).getUTCFullYear() !== new Date().getUTCFullYear()) options.year = 'numeric';
  try {
    return new Intl.DateTimeFormat(reader.locale, options).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en', options).format(new Date(iso));
  }
}
