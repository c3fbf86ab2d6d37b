/**
 * The console app: finds the page for the URL, makes sure a session exists for pages that need one (else
 * the sign-in page, returning here afterwards), and shows the page inside the shell: the farm switcher, the
 * live/test switch, the navigation and sign-out.
 */
import { CONSOLE_PAGES, type ConsolePage } from '../pages.ts';
import { ApiError, api, type Problem, whenSignedOut } from './api.ts';
import { NewFarm } from './farm-form.ts';
import { pageTitle, setReader, t } from './i18n.ts';
import { type ComponentChildren, html, inputValue, render, useEffect, useRef, useState } from './lib.ts';
import {
  chooseLocalFarm,
  forgetLocal,
  keepBoot,
  offlineBoot,
  status as offlineStatus,
  startLocal,
  syncNow,
  unsyncedCount,
  useOffline,
} from './offline.ts';
import { OfflineBar } from './offline-bar.ts';
import { PAGE_MODULES, type PageModule, type PageName } from './pages/index.ts';
import { useReader } from './reader-hook.ts';
import { matchPage, navigate, useLocation } from './router.ts';
import {
  type Catalog,
  chooseFarm,
  loadCatalog,
  loadFarms,
  loadSession,
  setSession,
  signedIn,
  state,
  switchMode,
  update,
  useStore,
} from './store.ts';
import { useStreamStatus } from './stream.ts';
import { ErrorText, Loading, problemOf, useAction } from './ui.ts';

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

export function signInUrl() {
  const next = location.pathname + location.search;
  return next === '/' || next.startsWith('/sign-in')
    ? '/sign-in'
    : `/sign-in?next=${encodeURIComponent(next)}`;
}

whenSignedOut(() => {
  setSession(null);
  navigate(signInUrl(), { replace: true });
});

function FarmSwitcher() {
  const { farms, farmId } = useStore();
  if (farms.length === 0) return html`<span class="muted">No farms</span>`;
  return html`<label class="farm-switcher"><span class="visually-hidden">${t('shell.farm')}</span>
    <select value=${farmId} onChange=${(e: Event) => chooseFarm(inputValue(e))}>
      ${farms.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
    </select></label>`;
}

function ModeSwitch() {
  useStore();
  const session = signedIn();
  const test = session.mode === 'test';
  const { busy, error, run: toggle } = useAction(() => switchMode(test ? 'live' : 'test'));
  return html`<span class="mode-switch">
    <label><input type="checkbox" role="switch" checked=${test} disabled=${busy} onChange=${toggle} />
      <span>Test mode</span></label>
    <${ErrorText} error=${error} />
  </span>`;
}

function StreamBadge() {
  const status = useStreamStatus();
  const { online } = useOffline();
  if (status === 'off' || !online) return null;
  return html`<span class=${`stream ${status}`} title="Updates arrive without reloading">
    ${status === 'live' ? 'Live' : 'Connecting…'}</span>`;
}

function Shell({ route, children }: { route: ConsolePage; children: ComponentChildren }) {
  useStore();
  const session = signedIn();
  const [error, setError] = useState<Problem | null>(null);
  const signOut = async () => {
    try {
      // Signing out deletes what this phone keeps for the person, their unsynced changes too: say so first.
      const unsynced = await unsyncedCount();
      const question = `${unsynced} change${unsynced === 1 ? '' : 's'} made on this phone ${unsynced === 1 ? 'has' : 'have'} not reached Farmstead yet. Signing out deletes ${unsynced === 1 ? 'it' : 'them'}. Sign out anyway?`;
      if (unsynced > 0 && !confirm(question)) return;
      await api('DELETE', '/v1/session');
      await forgetLocal();
      setSession(null);
      navigate('/sign-in');
    } catch (err) {
      setError(problemOf(err));
    }
  };
  const role = session.person.role;
  const nav = CONSOLE_PAGES.filter((p) => p.nav && (!p.roles || p.roles.includes(role)));
  return html`
    ${
      session.mode === 'test' &&
      html`<div class="test-banner" role="note">
      <strong>Test mode</strong><span class="long"> — sample and test farms only</span>; nothing reaches a live house.</div>`
    }
    <header class="top">
      <div class="bar">
        <a class="brand" href="/">Farmstead</a>
        <${FarmSwitcher} />
        <${StreamBadge} />
        <span class="spacer"></span>
        <div class="account">
          <${ModeSwitch} />
          <a class="who" href="/account" aria-label=${t('shell.your_account')}
            title=${`${session.person.email}: your account and password`}>
            <span class="name">${session.person.name ?? session.person.email}</span>
            <span class="role">${role}</span></a>
          <button type="button" class="button link" onClick=${signOut}>${t('shell.sign_out')}</button>
        </div>
      </div>
      <nav aria-label=${t('shell.pages')}><ul>
        ${nav.map(
          (p) =>
            html`<li><a href=${p.path} aria-current=${p === route ? 'page' : undefined}>${pageTitle(p)}</a></li>`,
        )}
      </ul></nav>
      <${ErrorText} error=${error} />
    </header>
    <${OfflineBar} />
    <main id="main" tabindex="-1">${children}</main>`;
}

function NoFarm() {
  useStore();
  const session = signedIn();
  return html`<div class="panel"><h1>No farm yet</h1>
    <p>This account has no ${session.mode} farms.
    ${session.mode === 'live' ? ' Switch on test mode above to look around the sample farm, or add your farm.' : ''}</p></div>
    <${NewFarm} title="Add your farm" />`;
}

/** The page module's name for a route (CONSOLE_PAGES' `page`; a test checks each has its module). */
function pageName(route: ConsolePage | undefined): PageName {
  return route && route.page in PAGE_MODULES ? (route.page as PageName) : 'brief';
}

function App() {
  useReader();
  const loc = useLocation();
  const store = useStore();
  // What the signed-in pages need first: the session, its farms and the catalog, loaded once per session
  // (a new sign-in, even in the same tab, loads them again).
  const [boot, setBoot] = useState<{ for: string | null; error: Problem | null }>({
    for: null,
    error: null,
  });
  const booting = useRef(false);
  const match = matchPage(loc.pathname);
  const route = match?.page;
  const { module, error } = usePageModule(pageName(route));
  const ready = store.session !== null && boot.for === store.session.csrf_token;

  useEffect(() => {
    if (!route || route.public || ready || booting.current) return;
    booting.current = true;
    (async () => {
      let session: Awaited<ReturnType<typeof loadSession>>;
      try {
        session = store.session ?? (await loadSession());
      } catch (err) {
        // No network: start from what the phone kept for the last person signed in on it.
        const boot = err instanceof ApiError && err.status === 0 ? await offlineBoot() : null;
        if (!boot) throw err;
        setSession(boot.session);
        await setReader(boot.session.person);
        update({ farms: boot.farms, farmId: boot.farmId, catalog: boot.catalog as Catalog });
        setBoot({ for: boot.session.csrf_token, error: null });
        return;
      }
      if (!session) {
        navigate(signInUrl(), { replace: true });
        return;
      }
      // The person's language and units before the first signed-in page shows.
      await Promise.all([loadFarms(), loadCatalog(), setReader(session.person)]);
      await startLocal(session.person.id, state.farmId);
      setBoot({ for: session.csrf_token, error: null });
    })()
      .catch((err: unknown) => setBoot({ for: null, error: problemOf(err) }))
      .finally(() => {
        booting.current = false;
      });
  }, [route, store.session, ready]);

  // What the phone keeps follows the chosen farm (and the session's farms and catalog, to start offline).
  useEffect(() => {
    const session = store.session;
    if (!ready || !session) return;
    const boot = { session, farms: store.farms, catalog: store.catalog, farmId: store.farmId };
    void keepBoot(boot)
      .then(() => chooseLocalFarm(store.farmId))
      .then(() => (offlineStatus.online ? syncNow() : undefined));
  }, [ready, store.farmId, store.farms]);

  useEffect(() => {
    document.title = route ? `${pageTitle(route)} · Farmstead` : 'Farmstead';
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [route]);

  if (!route) {
    return html`<main class="narrow"><h1>Page not found</h1><p><a href="/">Go to the brief</a></p></main>`;
  }
  if (error)
    return html`<main class="narrow"><${Loading} error=${error} retry=${() => location.reload()} /></main>`;
  if (route.public) {
    return html`<main class="narrow" id="main" tabindex="-1">
      ${module ? html`<${module.Page} params=${match?.params} />` : html`<${Loading} />`}</main>`;
  }
  if (!ready) {
    return html`<main class="narrow"><${Loading} error=${boot.error} retry=${() => location.reload()} /></main>`;
  }
  if (route.bare) {
    return html`<main class="narrow" id="main" tabindex="-1">
      ${module ? html`<${module.Page} params=${match?.params} />` : html`<${Loading} />`}</main>`;
  }
  if (route.roles && !route.roles.includes(signedIn().person.role)) {
    return html`<${Shell} route=${route}><div class="panel"><h1>${route.title}</h1>
      <p>Only an ${route.roles.join(' or ')} can open this page.</p></div><//>`;
  }
  const farm = store.farms.find((f) => f.id === store.farmId) ?? null;
  return html`<${Shell} route=${route}>
    ${!module ? html`<${Loading} />` : !farm && route.path !== '/people' ? html`<${NoFarm} />` : html`<${module.Page} params=${match?.params} farm=${farm} />`}
  <//>`;
}

const root = document.getElementById('app') as HTMLElement;
root.replaceChildren();
render(html`<${App} />`, root);

// The service worker (/sw.js): notifications, and the installed app. A browser without one still works.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
}
