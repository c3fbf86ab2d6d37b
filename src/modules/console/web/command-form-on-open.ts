/**
 * The house command form (web/command-form.ts, its parameter fields and checks) loaded when the
 * "Send a command" disclosure it sits in is first opened, not with the houses page: most visits only read
 * the houses (issue 45, page weight). The house commands come from the catalog (GET /v1/catalog, 5.6 KB),
 * read then too. Same props as command-form.ts's CommandForm but the commands; it must be inside a
 * `<details>` (outside one it loads at once).
 */
import type { Problem } from './api.ts';
import type { CommandForm as Form } from './command-form.ts';
import { html, useEffect, useRef, useState } from './lib.ts';
import { loadCatalog } from './store.ts';
import { Loading, problemOf } from './ui.ts';

type Props = Parameters<typeof Form>[0];
type Loaded = { module: typeof import('./command-form.ts'); commands: Props['commands'] };

let loading: Promise<Loaded> | null = null;

export function CommandForm(props: Omit<Props, 'commands'>) {
  const spot = useRef<HTMLSpanElement>(null);
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => {
    const details = spot.current?.closest('details');
    const load = () => {
      if (details && !details.open) return;
      loading ??= Promise.all([import('./command-form.ts'), loadCatalog()]).then(([module, catalog]) => ({
        module,
        commands: catalog.commands.house ?? [],
      }));
      loading.then(setLoaded, (err: unknown) => {
        loading = null;
        setError(problemOf(err));
      });
    };
    details?.addEventListener('toggle', load);
    load();
    return () => details?.removeEventListener('toggle', load);
  }, []);
  if (loaded) return html`<${loaded.module.CommandForm} ...${props} commands=${loaded.commands} />`;
  return html`<span ref=${spot}></span>${error && html`<${Loading} error=${error} />`}`;
}
