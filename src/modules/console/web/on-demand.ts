/**
 * Modules a page loads when first needed, not with the page (issue 45's page weight): the map's drawing and
 * import panels, an alert pin's words, Settings' sections, a chart's or a small map's drawing library once its
 * place comes into view (`useSeen`). `lazy` makes a hook that loads the module once per load of the console
 * and keeps it; `Lazy` shows "Loading…" (or why it failed) until it is there.
 */
import { html, type Markup, useEffect, useState } from './lib.ts';
import { Loading, problemOf } from './ui.ts';

export function lazy<M>(load: () => Promise<M>) {
  let loading: Promise<M> | null = null;
  let loaded: M | null = null;
  /** `wanted`: false until the module is needed (a chart not yet in view); it loads once it turns true. */
  return function useModule(wanted = true): { module: M | null; error: unknown } {
    const [state, setState] = useState<{ module: M | null; error: unknown }>({ module: loaded, error: null });
    useEffect(() => {
      if (!wanted) return;
      if (loaded) {
        if (!state.module) setState({ module: loaded, error: null });
        return;
      }
      loading ??= load().then((m) => {
        loaded = m;
        return m;
      });
      loading.then(
        (module) => setState({ module, error: null }),
        (error: unknown) => {
          loading = null;
          setState({ module: null, error });
        },
      );
    }, [wanted]);
    return state;
  };
}

/**
 * Whether the element in `ref` has come into view (once it has, it stays so), as a lazy image loads: a
 * chart's library (uPlot, about 20 KB) is fetched when the chart is scrolled to, not with a page whose first
 * screen does not show it. A browser without IntersectionObserver says yes at once.
 */
export function useSeen(ref: { readonly current: Element | null }): boolean {
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const element = ref.current;
    if (seen || !element) return;
    // The bottom of the window less the phone's bottom tab bar (3.5rem): what is behind the bar is not seen.
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        observer.disconnect();
        setSeen(true);
      },
      { rootMargin: '0px 0px -64px 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [seen]);
  return seen;
}

/** A panel from a module loaded on demand: "Loading…" (or why it failed) until it is there. */
export function Lazy<M>({
  use,
  children,
}: {
  use: () => { module: M | null; error: unknown };
  children: (m: M) => Markup;
}) {
  const { module, error } = use();
  if (!module) return html`<${Loading} error=${error ? problemOf(error) : null} />`;
  return children(module);
}
