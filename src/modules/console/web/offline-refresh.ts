/**
 * Refreshing the phone's copy of a farm (docs/offline.md): the brief, houses, open alerts and tasks, groups,
 * paddocks, the medicine cabinet and the devices whole, the herd by what changed since (/animals/changes);
 * then what is still queued is shown over the fresh data, and the farm's "as of" moves on.
 */
import { type Page, recentRead, type Schema, sendRaw, urlOf } from './api.ts';
import { applyLocally } from './offline-changes.ts';
import { currentFarm, type Local } from './offline-db.ts';
import { set } from './offline-status.ts';
import type { Change, Kind } from './queue-send.ts';

const PAGE_ALL = 100;

/** The catalog is kept once per load (it changes only with a new version of the server). */
let catalogKept = false;

/**
 * A read for the phone's copy: the answer a page had for the same URL a moment ago when there is one (no
 * call is made twice on one load), else its own, marked as the field app's (`x-farmstead-for: field-app`:
 * the browser tests weigh a page's first load without the farm copied for offline use, and count it apart).
 */
async function getJson<T>(url: string): Promise<T> {
  const recent = recentRead(url);
  if (recent) {
    try {
      return (await recent) as T;
    } catch {
      // The page's read failed: ask again.
    }
  }
  return (await sendRaw('GET', url, undefined, { 'x-farmstead-for': 'field-app' })).data as T;
}

async function everyPage<T>(template: string, path: Record<string, string>, query: Record<string, unknown>) {
  const out: T[] = [];
  let before: string | undefined;
  for (;;) {
    const next = await getJson<Page<T>>(urlOf(template, path, { ...query, limit: PAGE_ALL, before }));
    out.push(...next.data);
    if (!next.has_more || !next.next_before || out.length >= 5000) return out;
    before = next.next_before;
  }
}

async function replaceKind(db: Local, farm: string, kind: Kind, rows: { id: string }[]): Promise<void> {
  const tx = db.transaction('records', 'readwrite');
  const old = await tx.store.index('farmKind').getAllKeys([farm, kind]);
  for (const key of old) await tx.store.delete(key);
  let order = 0;
  for (const data of rows)
    await tx.store.put({ key: `${kind}:${data.id}`, farm, kind, order: order++, data });
  await tx.done;
}

/** Brings the farm's data on the phone up to date: small lists whole, the herd by what changed since. */
export async function refreshFarm(db: Local, farm: string): Promise<void> {
  const path = { farm };
  const [brief, houses, alerts, tasks, groups, paddocks, medicines, devices] = await Promise.all([
    getJson(urlOf('/v1/farms/{farm}/brief', path, {})),
    everyPage<{ id: string }>('/v1/farms/{farm}/houses', path, {}),
    everyPage<{ id: string }>('/v1/farms/{farm}/alerts', path, { status: 'active' }),
    everyPage<{ id: string }>('/v1/farms/{farm}/tasks', path, { status: 'open' }),
    everyPage<{ id: string }>('/v1/farms/{farm}/groups', path, {}),
    everyPage<{ id: string }>('/v1/farms/{farm}/paddocks', path, {}),
    // The medicine cabinet, so a treatment can be given chute-side without signal.
    everyPage<{ id: string }>('/v1/farms/{farm}/medicines', path, {}),
    // The devices (houses too), so the subject picker, the animal page and the device list work offline.
    everyPage<Schema<'Device'>>('/v1/farms/{farm}/devices', path, {}),
  ]);
  await refreshAnimals(db, farm);
  await db.put('meta', brief, `brief:${farm}`);
  await db.put('meta', houses, `houses:${farm}`);
  await replaceKind(db, farm, 'alert', alerts);
  await replaceKind(db, farm, 'task', tasks);
  await replaceKind(db, farm, 'group', groups);
  await replaceKind(db, farm, 'paddock', paddocks);
  await replaceKind(db, farm, 'medicine', medicines);
  await replaceKind(db, farm, 'device', devices.map(withoutState));
  // What is still queued is shown as the phone sees it, over the fresh data.
  for (const change of (await db.getAll('queue')) as Change[]) {
    if (change.state !== 'synced' && change.farm === farm) await applyLocally(db, change);
  }
  // The catalog for a page read offline (the houses page): the page's own read when it made one, after the
  // farm's lists so that read has started (the shell no longer reads the catalog for every page).
  if (!catalogKept) {
    await db.put('meta', await getJson('/v1/catalog'), 'catalog');
    catalogKept = true;
  }
  const asOf = new Date().toISOString();
  await db.put('meta', asOf, `asof:${farm}`);
  if (farm === currentFarm()) set({ asOf });
}

/**
 * A device as the phone keeps it: without its `state` (a house's state object is the biggest part of a
 * device, and no page reads it from the device list: the houses page reads the houses list, kept whole).
 */
function withoutState(device: Schema<'Device'>): Schema<'Device'> {
  return { ...device, state: {} };
}

type Changes = Schema<'AnimalChanges'>;

/** The herd: every animal the first time, then only what changed and what was deleted since. */
async function refreshAnimals(db: Local, farm: string): Promise<void> {
  const since = (await db.get('meta', `since:${farm}`)) as string | undefined;
  let after: string | undefined;
  let nextSince: string | null = null;
  for (;;) {
    const url = urlOf('/v1/farms/{farm}/animals/changes', { farm }, { since, after });
    const changes = await getJson<Changes>(url);
    nextSince ??= changes.next_since;
    const tx = db.transaction('records', 'readwrite');
    // The whole herd after a `since` too old for the deletions the server keeps: what the phone held goes.
    // (An animal added on this phone and not yet taken by the server stays.)
    if (since && changes.full && after === undefined) {
      for (const key of await tx.store.index('farmKind').getAllKeys([farm, 'animal'])) {
        if (!String(key).startsWith('animal:local_')) await tx.store.delete(key);
      }
    }
    for (const id of changes.removed) await tx.store.delete(`animal:${id}`);
    for (const animal of changes.data) {
      await tx.store.put({ key: `animal:${animal.id}`, farm, kind: 'animal', order: 0, data: animal });
    }
    await tx.done;
    if (!changes.has_more || !changes.next_after) break;
    after = changes.next_after;
  }
  await db.put('meta', nextSince, `since:${farm}`);
}
