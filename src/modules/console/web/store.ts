/**
 * What every page shares: the session (person, account, mode, CSRF token), the farms of the session's mode,
 * the chosen farm, and the catalog. One small store; components read it with useStore() and re-render on
 * change.
 */

import type { Catalog as DomainCatalog } from '../../../domain/catalog.ts';
import { type Access, allows, permission, type Resource, ROLE_PRESETS } from '../../../domain/permissions.ts';
import { ApiError, api, type Schema, setCsrfToken } from './api.ts';
import { changeSignal } from './lib.ts';

export type Session = Schema<'Session'>;
export type Farm = Schema<'Farm'>;
/** The catalog as the server builds it (the OpenAPI document describes it only as an object). */
export type Catalog = DomainCatalog;

export interface State {
  /** The Session object from /v1/session, or null before sign-in. */
  session: Session | null;
  /** The farms the session sees in its mode. */
  farms: Farm[];
  farmId: string | null;
  /** GET /v1/catalog, loaded once. */
  catalog: Catalog | null;
}

export const state: State = {
  session: null,
  farms: [],
  farmId: null,
  catalog: null,
};

const changes = changeSignal();

export function update(patch: Partial<State>): void {
  Object.assign(state, patch);
  changes.notify();
}

/** The shared state; the component re-renders when it changes. */
export function useStore(): State {
  changes.useSignal();
  return state;
}

/**
 * The session, on a page that is shown only to a signed-in person (the app shows no other page before the
 * session is loaded).
 */
export function signedIn(): Session {
  if (!state.session) throw new Error('This page needs a session.');
  return state.session;
}

/**
 * The catalog, on a page that loaded it (`loadCatalog()`): only the house command form (when opened) and
 * Settings' webhooks need it, so the shell does not load it for every page (issue 45, page weight).
 */
export function catalog(): Catalog {
  if (!state.catalog) throw new Error('The catalog is not loaded.');
  return state.catalog;
}

export function setSession(session: Session | null): void {
  setCsrfToken(session?.csrf_token ?? null);
  update({ session });
}

/** Loads the session; resolves null when there is none (not signed in). */
export async function loadSession(): Promise<Session | null> {
  try {
    setSession(await api('GET', '/v1/session'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) {
      setSession(null);
      return null;
    }
    throw err;
  }
  return state.session;
}

const farmKey = (mode: string) => `farmstead.farm.${mode}`;

/** Loads the farms of the session's mode and keeps the chosen one (remembered per mode on this device). */
export async function loadFarms(chosen?: string): Promise<void> {
  const mode = state.session?.mode ?? 'live';
  const list = await api('GET', '/v1/farms', { query: { limit: 100 } });
  const farms = list.data;
  const remembered = chosen ?? localStorage.getItem(farmKey(mode));
  const farmId = farms.find((f) => f.id === remembered)?.id ?? farms[0]?.id ?? null;
  if (chosen && farmId === chosen) localStorage.setItem(farmKey(mode), chosen);
  update({ farms, farmId });
}

export function chooseFarm(farmId: string): void {
  localStorage.setItem(farmKey(state.session?.mode ?? 'live'), farmId);
  update({ farmId });
}

export function currentFarm(): Farm | null {
  return state.farms.find((f) => f.id === state.farmId) ?? null;
}

/** Switches the session between live and test (test shows the sample farm), then reloads the farms. */
export async function switchMode(mode: Session['mode']): Promise<void> {
  setSession(await api('PATCH', '/v1/session', { body: { mode } }));
  await loadFarms();
}

let catalogRead: Promise<Catalog> | null = null;

/** GET /v1/catalog once: a page asking while it is on its way waits for the same answer. */
export function loadCatalog(): Promise<Catalog> {
  if (state.catalog) return Promise.resolve(state.catalog);
  catalogRead ??= api('GET', '/v1/catalog')
    .then((read) => {
      update({ catalog: read as Catalog });
      return catalog();
    })
    .finally(() => {
      catalogRead = null;
    });
  return catalogRead;
}

/**
 * Whether the signed-in person's role allows `access` on `resource`, from ROLE_PRESETS, the one place the
 * roles are written (the server enforces the same policy on every request; this only hides controls).
 */
export function can(resource: Resource, access: Access): boolean {
  const role = state.session?.person.role;
  const policy = role ? ROLE_PRESETS[role] : null;
  return policy ? allows(policy, permission(resource, access)) : false;
}
