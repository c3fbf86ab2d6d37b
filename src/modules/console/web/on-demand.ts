/**
 * Modules a page loads when first needed, not with the page (issue 45's page weight): the map's drawing and
 * import panels, an alert pin's words, Settings' sections. `lazy` makes a hook that loads the module once per
 * load of the console and keeps it; `Lazy` shows "Loading…" (or why it failed) until it is there.
 */
import { html, type Markup, useEffect, useState } from './lib.ts';
import { Loading, problemOf } from './ui.ts';

export function lazy<M>(load: () => Promise<M>) {
  let loading: Promise<M> | null = null;
  let loaded: M | null = null;
  return function useModule(): { module: M | null; error: unknown } {
    const [state, setState] = useState<{ module: M | null; error: unknown }>({ module: loaded, error: null });
    useEffect(() => {
      if (loaded) return;
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
    }, []);
    return state;
  };
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
