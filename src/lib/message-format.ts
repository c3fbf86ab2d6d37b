/**
 * Whole translated messages with placeholders and plural rules, on the platform's Intl (no library: the
 * console's bundle bound, docs/dependencies.md). A message is a string with `{name}` placeholders, or, when
 * it depends on a count, one string per plural category (`Intl.PluralRules`, chosen by `params.count`;
 * `other` required). Numbers in the parameters are written in the locale ("1.234,5"). Translated fragments
 * are never joined: each language writes the whole sentence.
 */

/** A message of a catalog: one text, or one per plural category of `count`. */
export type Message = string | PluralMessage;
export type PluralMessage = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

export type MessageParams = Readonly<Record<string, string | number | null | undefined>>;

const plurals = new Map<string, Intl.PluralRules>();
const numbers = new Map<string, Intl.NumberFormat>();

function pluralRules(locale: string): Intl.PluralRules {
  let rules = plurals.get(locale);
  if (!rules) {
    rules = safely(
      () => new Intl.PluralRules(locale),
      () => new Intl.PluralRules('en'),
    );
    plurals.set(locale, rules);
  }
  return rules;
}

function numberFormat(locale: string): Intl.NumberFormat {
  let format = numbers.get(locale);
  if (!format) {
    format = safely(
      () => new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }),
      () => new Intl.NumberFormat('en', { maximumFractionDigits: 2 }),
    );
    numbers.set(locale, format);
  }
  return format;
}

/** A locale Intl refuses (a browser's `en-US@posix`) falls back to English rather than throwing. */
function safely<T>(make: () => T, fallback: () => T): T {
  try {
    return make();
  } catch {
    return fallback();
  }
}

/** The message's text for these parameters, in this locale. */
export function formatMessage(locale: string, message: Message, params: MessageParams = {}): string {
  let text: string;
  if (typeof message === 'string') {
    text = message;
  } else {
    const count = Number(params.count ?? 0);
    // An exact-zero form ("=0") is written as `zero` where the language has no zero category.
    text = (count === 0 && message.zero) || message[pluralRules(locale).select(count)] || message.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined || value === null) return whole;
    return typeof value === 'number' ? numberFormat(locale).format(value) : value;
  });
}

/** The placeholders a message uses (every plural form's), for the catalogs' tests. */
export function placeholdersOf(message: Message): Set<string> {
  const texts = typeof message === 'string' ? [message] : Object.values(message);
  return new Set(texts.flatMap((t) => [...(t ?? '').matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string)));
}
