/**
 * What every page shares: the session (person, account, mode, CSRF token), the farms of the session's mode,
 * the chosen farm, and the catalog. One small store; components read it with useStore() and re-render on
 * change.
 */
import { allows, permission, ROLE_PRESETS } from '../../../domain/permissions.ts';
import { api, setCsrfToken } from './api.js';
import { useEffect, useState } from './lib.js';

export const state = {
  /** The Session object from /v1/session, or null before sign-in. */
  session: null,
  /** The farms the session sees in its mode. */
  farms: [],
  farmId: null,
  /** GET /v1/catalog, loaded once. */
  catalog: null,
};

const listeners = new Set();

export function update(patch) {
  Object.assign(state, patch);
  for (const listener of listeners) listener();
}

/** The shared state; the component re-renders when it changes. */
export function useStore() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return state;
}

export function setSession(session) {
  setCsrfToken(session?.csrf_token ?? null);
  update({ session });
}

/** Loads the session; resolves null when there is none (not signed in). */
export async function loadSession() {
  try {
    setSession(await api('GET', '/v1/session'));
  } catch (err) {
    if (err.status === 401) {
      setSession(null);
      return null;
    }
    throw err;
  }
  return state.session;
}

const farmKey = (mode) => `farmstead.farm.${mode}`;

/** Loads the farms of the session's mode and keeps the chosen one (remembered per mode on this device). */
export async function loadFarms() {
  const mode = state.session?.mode ?? 'live';
  const list = await api('GET', '/v1/farms?limit=100');
  const farms = list.data;
  const remembered = localStorage.getItem(farmKey(mode));
  const farmId = farms.find((f) => f.id === remembered)?.id ?? farms[0]?.id ?? null;
  update({ farms, farmId });
}

export function chooseFarm(farmId) {
  localStorage.setItem(farmKey(state.session?.mode ?? 'live'), farmId);
  update({ farmId });
}

export function currentFarm() {
  return state.farms.find((f) => f.id === state.farmId) ?? null;
}

/** Switches the session between live and test (test shows the sample farm), then reloads the farms. */
export async function switchMode(mode) {
  setSession(await api('PATCH', '/v1/session', { mode }));
  await loadFarms();
}

export async function loadCatalog() {
  if (!state.catalog) update({ catalog: await api('GET', '/v1/catalog') });
  return state.catalog;
}

/**
 * Whether the signed-in person's role allows `access` on `resource`, from ROLE_PRESETS, the one place the
 * roles are written (the server enforces the same policy on every request; this only hides controls).
 */
export function can(resource, access) {
  const role = state.session?.person?.role;
  const policy = role ? ROLE_PRESETS[role] : null;
  return policy ? allows(policy, permission(resource, access)) : false;
}
