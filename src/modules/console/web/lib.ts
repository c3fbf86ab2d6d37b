/**
 * The libraries every console module uses, imported once here: Preact renders, htm gives it tagged-template
 * markup without a build step (`html\`<p>${text}</p>\``), and the hooks hold component state.
 */
import htmModule from 'htm';
import { type ComponentChildren, h, render, type VNode } from 'preact';

import { useEffect, useState } from 'preact/hooks';

export { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
export type { ComponentChildren, VNode };
export { render };

// htm's type declarations describe a CommonJS module; the browser is served its ES module, whose default
// export is htm itself.
const htm = htmModule as unknown as (typeof htmModule)['default'];
export const html = htm.bind(h);

/** What a component renders: htm markup, text, or nothing. */
export type Markup = ReturnType<typeof html> | string | null | false | undefined;

/**
 * Links a style sheet into the document, once, when the calling module first loads: a page's own (chute.css,
 * herd-book.css, map.css: not in styles.css, which every page loads) or a library's served beside
 * it (vendor/…). `url` is resolved against the caller's `import.meta.url`, so it carries the asset version.
 */
export function linkStyleSheet(url: URL): void {
  const sheet = document.createElement('link');
  sheet.rel = 'stylesheet';
  sheet.href = url.href;
  document.head.append(sheet);
}

/** The value of the input, select or textarea an event came from. */
export function inputValue(event: Event): string {
  return (event.currentTarget as HTMLInputElement).value;
}

/** Whether the check box an event came from is ticked. */
export function checkedOf(event: Event): boolean {
  return (event.currentTarget as HTMLInputElement).checked;
}

/**
 * A signal for module-level state that components show (the store, the location, the field app's status):
 * `notify()` after the state changes; `useSignal()` in a component re-renders it on each notify.
 */
export function changeSignal(): { notify(): void; useSignal(): void } {
  const listeners = new Set<() => void>();
  return {
    notify() {
      for (const listener of listeners) listener();
    },
    useSignal() {
      const [, setTick] = useState(0);
      useEffect(() => {
        const listener = () => setTick((n) => n + 1);
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      }, []);
    },
  };
}
