/**
 * The signed-in console (loaded by app.ts for every page that needs a session): loads the session and its
 * farms once, keeps the field app's data for the chosen farm, and shows the page inside the shell. (The
 * catalog is loaded by the few pages that use it: store.ts's loadCatalog.)
 *
 * The shell, phone first: ONE header row (the farm, one mode indicator — test mode as an orange pill said
 * once — the live connection as a small dot with a text alternative, and the account), a bottom tab bar under
 * the thumb (Brief, Alerts, Map, Animals, More; the other pages, the test-mode switch, the high-contrast
 * option and sign-out under More); on a wide screen the same navigation is a side column with everything
 * in it. It is one `nav` landmark either way, so a keyboard and a screen reader find the same links.
 */
import { CONSOLE_PAGES, type ConsolePage } from '../pages.ts';
import { ApiError, api, type Problem } from './api.ts';
import { highContrast, setHighContrast } from './contrast.ts';
import { pageTitle, setReader, t } from './i18n.ts';
import { type ComponentChildren, checkedOf, html, inputValue, useEffect, useRef, useState } from './lib.ts';
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
import type { PageModule } from './pages/index.ts';
import { navigate, type PageMatch, signInUrl, useLocation } from './router.ts';
import {
  chooseFarm,
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
import { ErrorText, Loading, problemOf, useAction, useLoad } from './ui.ts';

function FarmSwitcher() {
  const { farms, farmId } = useStore();
  if (farms.length === 0) return html`<span class="farm-switcher muted">${t('shell.no_farms')}</span>`;
  const farm = farms.find((f) => f.id === farmId);
  // The select shows the whole name on a wide screen; on a phone it ellipsizes after whole words' worth of
  // room, and its title and the listed options carry the full name.
  return html`<label class="farm-switcher" title=${farm?.name}><span class="visually-hidden">${t('shell.farm')}</span>
    <select value=${farmId} onChange=${(e: Event) => chooseFarm(inputValue(e))}>
      ${farms.map((f) => html`<option value=${f.id}>${f.name}</option>`)}
    </select></label>`;
}

/** The one mode indicator: test mode is an orange pill; live mode (the usual) shows nothing. */
function ModeIndicator() {
  useStore();
  if (signedIn().mode !== 'test') return null;
  return html`<span class="mode-pill" role="note" title=${t('shell.test_mode_title')}>${t('shell.test_pill')}<span class="pill-more">${t('shell.test_pill_more')}</span></span>`;
}

/** The test-mode switch (under More on a phone, in the side navigation on a desktop). */
function ModeSwitch() {
  useStore();
  const test = signedIn().mode === 'test';
  const { busy, error, run: toggle } = useAction(() => switchMode(test ? 'live' : 'test'));
  return html`<div class="nav-option">
    <label><input type="checkbox" role="switch" checked=${test} disabled=${busy} onChange=${toggle} />
      <span>${t('shell.test_mode')}</span></label>
    <${ErrorText} error=${error} />
  </div>`;
}

function ContrastSwitch() {
  const [on, setOn] = useState(highContrast());
  return html`<div class="nav-option">
    <label><input type="checkbox" role="switch" checked=${on}
      onChange=${(e: Event) => {
        setHighContrast(checkedOf(e));
        setOn(checkedOf(e));
      }} />
      <span>${t('shell.high_contrast')}</span></label>
  </div>`;
}

/** The live connection: a small dot, its state said in words to a screen reader and on hover. */
function StreamDot() {
  const status = useStreamStatus();
  const { online } = useOffline();
  if (status === 'off' || !online) return null;
  const words = t(status === 'live' ? 'shell.stream_live' : 'shell.stream_connecting');
  return html`<span class=${`stream ${status}`} role="img" aria-label=${words} title=${words}></span>`;
}

/** The main destinations, in the bottom tab bar on a phone (CONSOLE_PAGES' `tab`). */
function isTab(page: ConsolePage): boolean {
  return page.tab === true;
}

function Navigation({ route, signOut }: { route: ConsolePage; signOut: () => void }) {
  useStore();
  const loc = useLocation();
  const [open, setOpen] = useState(false);
  const role = signedIn().person.role;
  const pages = CONSOLE_PAGES.filter((p) => p.nav && (!p.roles || p.roles.includes(role)));
  const tabs = pages.filter(isTab);
  const rest = pages.filter((p) => !isTab(p));
  // A page chosen under More closes it.
  useEffect(() => setOpen(false), [loc.pathname]);
  useEffect(() => {
    if (!open) return;
    const close = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        setOpen(false);
        document.getElementById('more-button')?.focus();
      }
    };
    addEventListener('keydown', close);
    return () => removeEventListener('keydown', close);
  }, [open]);
  // The entry of the page shown (a settings section is Settings' entry).
  const current = pages.find((p) => p.page === route.page);
  const link = (p: ConsolePage) =>
    html`<li><a href=${p.path} aria-current=${p === current ? 'page' : undefined}>${pageTitle(p)}</a></li>`;
  const inMore = current !== undefined && !isTab(current);
  return html`<nav class=${`pages${open ? ' open' : ''}`} aria-label=${t('shell.pages')}>
    <ul class="tabs-list">
      ${tabs.map(link)}
      <li class="more-item"><button type="button" id="more-button" class="more-button"
        aria-expanded=${open} aria-controls="more-pages" aria-current=${inMore ? 'page' : undefined}
        onClick=${() => setOpen(!open)}>${t('shell.more')}</button></li>
    </ul>
    <div class="more" id="more-pages">
      <ul>${rest.map(link)}</ul>
      <${ModeSwitch} />
      <${ContrastSwitch} />
      <button type="button" class="button link sign-out" onClick=${signOut}>${t('shell.sign_out')}</button>
    </div>
  </nav>`;
}

function Shell({ route, children }: { route: ConsolePage; children: ComponentChildren }) {
  useStore();
  const session = signedIn();
  const [error, setError] = useState<Problem | null>(null);
  const signOut = async () => {
    try {
      // Signing out deletes what this phone keeps for the person, their unsynced changes too: say so first.
      const unsynced = await unsyncedCount();
      const question = t('shell.sign_out_unsynced', { count: unsynced });
      if (unsynced > 0 && !confirm(question)) return;
      await api('DELETE', '/v1/session');
      await forgetLocal();
      setSession(null);
      navigate('/sign-in');
    } catch (err) {
      setError(problemOf(err));
    }
  };
  const who = session.person.name ?? session.person.email;
  return html`
    <header class=${`top${session.mode === 'test' ? ' test' : ''}`}>
      <div class="bar">
        <${FarmSwitcher} />
        <${ModeIndicator} />
        <${StreamDot} />
        <a class="who" href="/account"
          title=${`${session.person.email} (${session.person.role}): your account and password`}>
          <span class="initial" aria-hidden="true">${who.slice(0, 1).toUpperCase()}</span>
          <span class="name">${who}</span><span class="visually-hidden">: ${t('shell.your_account')}</span></a>
      </div>
      <${ErrorText} error=${error} />
    </header>
    <${OfflineBar} />
    <div class="layout">
      <${Navigation} route=${route} signOut=${signOut} />
      <main id="main" tabindex="-1">${children}</main>
    </div>`;
}

/** The form adding a farm, loaded only for an account with none (web/farm-form.ts and its form pieces). */
const farmForm = () => import('./farm-form.ts');

function NoFarm() {
  useStore();
  const session = signedIn();
  const form = useLoad(farmForm, []);
  return html`<div class="panel"><h1>${t('shell.no_farm')}</h1>
    <p>${t(session.mode === 'live' ? 'shell.no_live_farms' : 'shell.no_test_farms')}</p></div>
    ${form.data ? html`<${form.data.NewFarm} title=${t('shell.add_your_farm')} />` : html`<${Loading} error=${form.error} retry=${form.reload} />`}`;
}

/** A page that needs a session, inside the shell once the session and its farms are loaded. */
export function SignedIn({ match, module }: { match: PageMatch; module: PageModule | null }) {
  const store = useStore();
  const route = match.page;
  // What the signed-in pages need first: the session and its farms, loaded once per session
  // (a new sign-in, even in the same tab, loads them again).
  const [boot, setBoot] = useState<{ for: string | null; error: Problem | null }>({
    for: null,
    error: null,
  });
  const booting = useRef(false);
  const ready = store.session !== null && boot.for === store.session.csrf_token;

  useEffect(() => {
    if (ready || booting.current) return;
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
        update({ farms: boot.farms, farmId: boot.farmId });
        setBoot({ for: boot.session.csrf_token, error: null });
        return;
      }
      if (!session) {
        navigate(signInUrl(), { replace: true });
        return;
      }
      // The person's language and units before the first signed-in page shows.
      await Promise.all([loadFarms(), setReader(session.person)]);
      await startLocal(session.person.id, state.farmId);
      setBoot({ for: session.csrf_token, error: null });
    })()
      .catch((err: unknown) => setBoot({ for: null, error: problemOf(err) }))
      .finally(() => {
        booting.current = false;
      });
  }, [store.session, ready]);

  // The first page's module has arrived and the page has rendered: its first reads are on their way (a
  // component's effects run before its parent's), so the refresh below takes their answers instead of asking
  // again (docs/console.md, "No API call twice on one load").
  const [pageShown, setPageShown] = useState(false);
  useEffect(() => {
    if (module) setPageShown(true);
  }, [module]);

  // What the phone keeps follows the chosen farm (and the session's farms, to start offline).
  useEffect(() => {
    const session = store.session;
    if (!ready || !session || !pageShown) return;
    const boot = { session, farms: store.farms, farmId: store.farmId };
    void keepBoot(boot)
      .then(() => chooseLocalFarm(store.farmId))
      .then(() => (offlineStatus.online ? syncNow() : undefined));
  }, [ready, pageShown, store.farmId, store.farms]);

  if (!ready) {
    return html`<main class="narrow" id="main"><${Loading} error=${boot.error} retry=${() => location.reload()} /></main>`;
  }
  if (route.bare) {
    return html`<main class="narrow" id="main" tabindex="-1">
      ${module ? html`<${module.Page} params=${match.params} />` : html`<${Loading} />`}</main>`;
  }
  if (route.roles && !route.roles.includes(signedIn().person.role)) {
    return html`<${Shell} route=${route}><div class="panel"><h1>${pageTitle(route)}</h1>
      <p>${
        route.roles.length === 1 && route.roles[0] === 'owner'
          ? t('shell.owner_only')
          : t('shell.roles_only', { roles: route.roles.map((r) => t(`role.${r}`)).join(', ') })
      }</p></div><//>`;
  }
  const farm = store.farms.find((f) => f.id === store.farmId) ?? null;
  return html`<${Shell} route=${route}>
    ${!module ? html`<${Loading} />` : !farm && route.path !== '/people' ? html`<${NoFarm} />` : html`<${module.Page} params=${match.params} farm=${farm} />`}
  <//>`;
}
