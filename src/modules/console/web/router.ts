/**
 * Client-side navigation between the console's pages (CONSOLE_PAGES, the list the server serves too):
 * links inside the app change the page without reloading it; the back button works as usual.
 */
import { CONSOLE_PAGES, type ConsolePage } from '../pages.ts';
import { changeSignal } from './lib.ts';

const changes = changeSignal();

function patternOf(path: string): RegExp {
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? `(?<${segment.slice(1)}>[^/]+)` : segment))
    .join('/');
  return new RegExp(`^${source}/?$`);
}

const ROUTES = CONSOLE_PAGES.map((page) => ({ page, pattern: patternOf(page.path) }));

export interface PageMatch {
  page: ConsolePage;
  params: Record<string, string>;
}

/** The page for a path and its parameters, or null when the console has no such page. */
export function matchPage(pathname: string): PageMatch | null {
  for (const route of ROUTES) {
    const found = route.pattern.exec(pathname);
    if (found) return { page: route.page, params: { ...found.groups } };
  }
  return null;
}

/** Goes to a console URL without reloading (a full load when the path is not a console page). */
export function navigate(url: string, { replace = false } = {}): void {
  const target = new URL(url, location.href);
  if (target.origin !== location.origin || !matchPage(target.pathname)) {
    location.assign(target.href);
    return;
  }
  history[replace ? 'replaceState' : 'pushState'](null, '', target.pathname + target.search + target.hash);
  changes.notify();
}

/** The current location; components using it re-render when it changes. */
export function useLocation(): Location {
  changes.useSignal();
  return location;
}

/** Whether a console path exists (links to pages not built yet are left out rather than broken). */
export function hasPage(pathname: string): boolean {
  return matchPage(pathname) !== null;
}

addEventListener('popstate', () => {
  changes.notify();
});

// Links to console pages stay in the app (plain clicks only: a modified click opens a tab as usual).
addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
  if (!(link instanceof HTMLAnchorElement) || link.target || link.hasAttribute('download')) return;
  const target = new URL(link.href, location.href);
  if (target.origin !== location.origin || !matchPage(target.pathname)) return;
  event.preventDefault();
  if (target.pathname === location.pathname && target.search === location.search && target.hash) {
    history.pushState(null, '', target.hash);
    document.getElementById(target.hash.slice(1))?.scrollIntoView();
    return;
  }
  navigate(target.href);
});

/** The sign-in page, returning afterwards to the page asked for (not when that is the brief or sign-in). */
export function signInUrl(): string {
  const next = location.pathname + location.search;
  return next === '/' || next.startsWith('/sign-in')
    ? '/sign-in'
    : `/sign-in?next=${encodeURIComponent(next)}`;
}
