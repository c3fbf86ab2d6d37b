/**
 * The house command form (web/command-form.ts, its parameter fields and checks) loaded when the
 * "Send a command" disclosure it sits in is first opened, not with the houses page: most visits only read
 * the houses (issue 45, page weight). Same props as command-form.ts's CommandForm; it must be inside a
 * `<details>` (outside one it loads at once).
 */
import type { Problem } from './api.ts';
import type { CommandForm as Form } from './command-form.ts';
import { html, useEffect, useRef, useState } from './lib.ts';
import { Loading, problemOf } from './ui.ts';

type Module = typeof import('./command-form.ts');

let loading: Promise<Module> | null = null;

export function CommandForm(props: Parameters<typeof Form>[0]) {
  const spot = useRef<HTMLSpanElement>(null);
  const [module, setModule] = useState<Module | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => {
    const details = spot.current?.closest('details');
    const load = () => {
      if (details && !details.open) return;
      loading ??= import('./command-form.ts');
      loading.then(setModule, (err: unknown) => {
        loading = null;
        setError(problemOf(err));
      });
    };
    details?.addEventListener('toggle', load);
    load();
    return () => details?.removeEventListener('toggle', load);
  }, []);
  if (module) return html`<${module.CommandForm} ...${props} />`;
  return html`<span ref=${spot}></span>${error && html`<${Loading} error=${error} />`}`;
}
