/**
 * A language tag `Intl` accepts, before uPlot loads. uPlot formats numbers with
 * `new Intl.NumberFormat(navigator.language)` as its module is evaluated, and a browser whose language is
 * not a valid BCP 47 tag (Chromium on a machine with a POSIX locale reports `en-US@posix`) makes that throw,
 * so every page with a chart failed. When the browser's tag is refused, `navigator.language` is given the
 * nearest tag that works (`en-US@posix` → `en-US`, `de_DE.UTF-8` → `de-DE`, else `en`) for this page.
 * web/chart-plot.ts imports this module before uPlot, so it runs first.
 */

/** Whether Intl accepts the tag. */
function accepted(tag: string): boolean {
  try {
    Intl.getCanonicalLocales(tag);
    return true;
  } catch {
    return false;
  }
}

/** The nearest tag Intl accepts: the POSIX modifier and code set dropped, `_` as `-`; `en` when none works. */
export function usableLanguage(tag: string | undefined): string {
  if (tag && accepted(tag)) return tag;
  const base = (tag ?? '').replace(/[@.].*$/, '').replaceAll('_', '-');
  if (base && accepted(base)) return base;
  const language = base.split('-')[0] ?? '';
  return language && accepted(language) ? language : 'en';
}

if (typeof navigator !== 'undefined') {
  const usable = usableLanguage(navigator.language);
  if (usable !== navigator.language) {
    Object.defineProperty(navigator, 'language', { value: usable, configurable: true });
  }
}
