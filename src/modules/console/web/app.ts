/**
 * The console app: finds the page for the URL and shows it. Public pages (sign-in, setup, an emailed
 * acknowledge link) show alone and load only what they need; every other page is shown by the signed-in
 * shell (`shell.ts`: the session, the farm, the header, the navigation, the field app), loaded on first use so
 * the sign-in page never carries it.
 */
import type { ConsolePage } from '../pages.ts';
import { type Problem, whenSignedOut } from './api.ts';
import { applyContrast } from './contrast.ts';
import { pageTitle, t } from './i18n.ts';
import { type ComponentChildren, html, render, useEffect, useState } from './lib.ts';
import { PAGE_MODULES, type PageModule, type PageName } from './pages/index.ts';
import { useReader } from './reader-hook.ts';
import { matchPage, navigate, type PageMatch, signInUrl, useLocation } from './router.ts';
import { setSession } from './store.ts';
import { Loading, problemOf } from './ui.ts';

const loaded = new Map<PageName, PageModule>();

/** The page's module, loaded once; null while it loads (never another page's module). */
function usePageModule(name: PageName) {
  const [state, setState] = useState<{ name: PageName | null; error: Problem | null }>({
    name: null,
    error: null,
  });
  useEffect(() => {
    if (loaded.has(name)) {
      setState({ name, error: null });
      return;
    }
    PAGE_MODULES[name]().then(
      (m) => {
        loaded.set(name, m);
        setState({ name, error: null });
      },
      (error: unknown) => setState({ name, error: problemOf(error) }),
    );
  }, [name]);
  const module = loaded.get(name) ?? null;
  return { module, error: state.name === name ? state.error : null };
}

whenSignedOut(() => {
  setSession(null);
  navigate(signInUrl(), { replace: true });
});

/** What the signed-in shell module gives the app (web/shell.ts). */
export interface ShellModule {
  SignedIn(props: { match: PageMatch; module: PageModule | null }): ComponentChildren;
}

let shellModule: ShellModule | null = null;

/** The signed-in shell's module, loaded the first time a page needs a session. */
function useShell(needed: boolean): { shell: ShellModule | null; error: Problem | null } {
  const [, setLoaded] = useState(0);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => {
    if (!needed || shellModule) return;
    import('./shell.ts').then(
      (m) => {
        shellModule = m;
        setLoaded((n) => n + 1);
      },
      (err: unknown) => setError(problemOf(err)),
    );
  }, [needed]);
  return { shell: shellModule, error };
}

/** The page module's name for a route (CONSOLE_PAGES' `page`; a test checks each has its module). */
function pageName(route: ConsolePage | undefined): PageName {
  return route && route.page in PAGE_MODULES ? (route.page as PageName) : 'brief';
}

function App() {
  useReader();
  const loc = useLocation();
  const match = matchPage(loc.pathname);
  const route = match?.page;
  const { module, error } = usePageModule(pageName(route));
  const { shell, error: shellError } = useShell(route !== undefined && !route.public);

  useEffect(() => {
    document.title = route ? `${pageTitle(route)} · Farmstead` : 'Farmstead';
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [route]);

  if (!match || !route) {
    return html`<main class="narrow" id="main"><h1>${t('app.not_found')}</h1><p><a href="/">${t('app.to_brief')}</a></p></main>`;
  }
  const failed = error ?? shellError;
  if (failed)
    return html`<main class="narrow" id="main"><${Loading} error=${failed} retry=${() => location.reload()} /></main>`;
  if (route.public) {
    return html`<main class="narrow" id="main" tabindex="-1">
      ${module ? html`<${module.Page} params=${match.params} />` : html`<${Loading} />`}</main>`;
  }
  if (!shell) return html`<main class="narrow" id="main"><${Loading} /></main>`;
  return html`<${shell.SignedIn} match=${match} module=${module} />`;
}

applyContrast();

const root = document.getElementById('app') as HTMLElement;
root.replaceChildren();
render(html`<${App} />`, root);

// The service worker (/sw.js): notifications, and the installed app. A browser without one still works.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
}
