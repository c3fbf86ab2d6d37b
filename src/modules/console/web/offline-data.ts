/**
 * The field app's data (docs/offline.md), loaded on demand by offline.ts: what the console keeps on the
 * phone, and the changes it keeps for later.
 *
 *  - One IndexedDB database per signed-in person (`farmstead-<person id>`, through idb): the session, farms
 *    and catalog to start without a network; per farm the brief, the houses, the open alerts and tasks, the
 *    groups, paddocks and the whole herd (refreshed by what changed since: /animals/changes).
 *  - api() asks `read` for a GET the network cannot answer, and `queue` for a write that can wait: mark a task
 *    done, add a task, log an event, add or edit an animal, acknowledge an alert. Each change keeps its own
 *    Idempotency-Key and the time it was made (an event's `at`), and is shown on the phone at once.
 *  - `syncNow()` sends the waiting changes in order (queue-send.ts, which the service worker runs too), then
 *    refreshes the farm: under a Web Lock, so two tabs never send at once (and the key makes a change sent
 *    twice one record anyway).
 */
import { deleteDB, type IDBPDatabase, openDB } from 'idb';
import { ApiError, newKey, type Page, type QueuedCall, type Schema, sendRaw, urlOf } from './api.ts';
import { set, status } from './offline-status.ts';
import {
  type Change,
  databaseOf,
  type Kind,
  type LocalRecord,
  type QueueStore,
  SYNC_TAG_PREFIX,
  sendQueue,
  syncLockOf,
} from './queue-send.ts';

export type { Change };

type Animal = Schema<'Animal'>;

type Local = IDBPDatabase;

/** The person whose data this tab shows (also read before sign-in, to start offline). */
const PERSON_KEY = 'farmstead.person';
const PAGE_ALL = 100;

let person: string | null = null;
let farmId: string | null = null;
let opened: Promise<Local> | null = null;

function openLocal(id: string): Promise<Local> {
  return openDB(databaseOf(id), 1, {
    upgrade(db) {
      db.createObjectStore('meta');
      const records = db.createObjectStore('records', { keyPath: 'key' });
      records.createIndex('farmKind', ['farm', 'kind']);
      db.createObjectStore('queue', { keyPath: 'key' });
    },
  });
}

function local(): Promise<Local> | null {
  return opened;
}

/** Starts the field app for a signed-in person (their own database) and a farm. */
export async function startLocal(personId: string, farm: string | null): Promise<void> {
  if (person !== personId) {
    person = personId;
    opened = openLocal(personId);
    localStorage.setItem(PERSON_KEY, personId);
  }
  await chooseLocalFarm(farm);
}

/** The chosen farm changed: its "as of" and the queue's counts (the app then syncs, when online). */
export async function chooseLocalFarm(farm: string | null): Promise<void> {
  farmId = farm;
  const db = await local();
  if (!db) return;
  set({ asOf: farm ? ((await db.get('meta', `asof:${farm}`)) ?? null) : null });
  await countQueue();
}

export interface Boot {
  session: Schema<'Session'>;
  farms: Schema<'Farm'>[];
  catalog: unknown;
  farmId: string | null;
}

/** Keeps what starting the console needs (session, farms, catalog) for a start without a network. */
export async function keepBoot(boot: Boot): Promise<void> {
  const db = await local();
  await db?.put('meta', boot, 'boot');
}

/** What the last person signed in on this phone kept for starting offline, or null. */
export async function offlineBoot(): Promise<Boot | null> {
  const id = localStorage.getItem(PERSON_KEY);
  if (!id) return null;
  const db = await openLocal(id);
  const boot = (await db.get('meta', 'boot')) as Boot | undefined;
  db.close();
  if (!boot) return null;
  await startLocal(id, boot.farmId);
  set({ online: false });
  return boot;
}

/** Changes on the phone the server has not taken yet (waiting or needing attention). */
export async function unsyncedCount(): Promise<number> {
  const db = await local();
  if (!db) return 0;
  const all = (await db.getAll('queue')) as Change[];
  return all.filter((c) => c.state !== 'synced').length;
}

/** Signing out: deletes this person's database (data and queue) and forgets them on this phone. */
export async function forgetLocal(): Promise<void> {
  const id = person ?? localStorage.getItem(PERSON_KEY);
  const db = await local();
  db?.close();
  opened = null;
  person = null;
  localStorage.removeItem(PERSON_KEY);
  if (id) await deleteDB(databaseOf(id));
  set({ asOf: null, waiting: 0, attention: 0 });
}

// ---- Reading from the phone ------------------------------------------------------------------------------

async function records(db: Local, farm: string, kind: Kind): Promise<LocalRecord[]> {
  const all = (await db.getAllFromIndex('records', 'farmKind', [farm, kind])) as LocalRecord[];
  return all.sort((a, b) => a.order - b.order);
}

function page<T>(data: T[], hasMore = false, next: string | null = null): Page<T> {
  return { data, has_more: hasMore, next_before: next };
}

const str = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

/** The animals matching a list query, newest first, a page at a time (the cursor is an offset here). */
function searchAnimals(all: Animal[], query: Record<string, unknown>): Page<Animal> {
  const q = str(query.q)?.toLowerCase();
  const exact = ['species', 'status', 'tag', 'eid', 'group_id', 'paddock_id'] as const;
  const found = all.filter((a) => {
    for (const name of exact) {
      const wanted = str(query[name]);
      if (wanted !== undefined && a[name] !== wanted) return false;
    }
    if (!q) return true;
    return [a.name, a.tag, a.eid, a.breed].some((v) => v?.toLowerCase().includes(q));
  });
  found.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  const limit = Number(query.limit ?? 50);
  const from = Number(/^offline:(\d+)$/.exec(str(query.before) ?? '')?.[1] ?? 0);
  const shown = found.slice(from, from + limit);
  const more = from + limit < found.length;
  return page(shown, more, more ? `offline:${from + limit}` : null);
}

/** The events logged on the phone and not yet synced (the server's log is not kept offline). */
async function queuedEvents(db: Local, farm: string, subject: string | undefined) {
  const queue = (await db.getAll('queue')) as Change[];
  return queue
    .filter((c) => c.state !== 'synced' && c.farm === farm && c.template === '/v1/farms/{farm}/events')
    .map((c) => eventOf(c))
    .filter((e) => !subject || e.subject_id === subject)
    .reverse();
}

function eventOf(change: Change) {
  const body = change.body as Record<string, unknown>;
  return {
    id: change.key,
    farm_id: change.farm,
    type: String(body.type),
    subject_type: (body.subject_type as string | undefined) ?? null,
    subject_id: (body.subject_id as string | undefined) ?? null,
    data: (body.data as Record<string, unknown> | undefined) ?? {},
    at: String(body.at ?? change.made_at),
    created_at: change.made_at,
  };
}

/** A GET answered from the phone, or undefined when the phone does not keep it. */
export async function read(
  template: string,
  path: Record<string, string>,
  query: Record<string, unknown>,
): Promise<unknown> {
  const db = await local();
  if (!db) return undefined;
  const farm = path.farm ?? farmId;
  if (!farm || !(await db.get('meta', `asof:${farm}`))) return undefined;
  const list = async (kind: Kind) => (await records(db, farm, kind)).map((r) => r.data);
  switch (template) {
    case '/v1/farms/{farm}/brief':
      return db.get('meta', `brief:${farm}`);
    case '/v1/farms/{farm}/houses':
      return page(query.before ? [] : ((await db.get('meta', `houses:${farm}`)) ?? []));
    case '/v1/farms/{farm}/groups':
      return page(await list('group'));
    case '/v1/farms/{farm}/paddocks':
      return page(await list('paddock'));
    case '/v1/farms/{farm}/devices':
      // Devices are not kept: the animal page lists none offline rather than failing.
      return page([]);
    case '/v1/farms/{farm}/alerts': {
      const wanted = str(query.status) ?? 'active';
      const all = (await list('alert')) as unknown as { status: string }[];
      return page(
        all.filter((a) =>
          wanted === 'all' ? true : wanted === 'active' ? a.status !== 'resolved' : a.status === wanted,
        ),
      );
    }
    case '/v1/farms/{farm}/tasks': {
      const all = (await list('task')) as unknown as { status: string; assignee: string | null }[];
      const wanted = str(query.status);
      const who = str(query.assignee);
      return page(all.filter((t) => (!wanted || t.status === wanted) && (!who || t.assignee === who)));
    }
    case '/v1/farms/{farm}/animals':
      return searchAnimals((await list('animal')) as unknown as Animal[], query);
    case '/v1/farms/{farm}/events':
      return page(query.before ? [] : await queuedEvents(db, farm, str(query.subject_id)));
    case '/v1/animals/{id}':
      return (await db.get('records', `animal:${path.id}`))?.data;
    default:
      return undefined;
  }
}

// ---- Refreshing the phone's data -------------------------------------------------------------------------

async function getJson<T>(url: string): Promise<T> {
  return (await sendRaw('GET', url, undefined, {})).data as T;
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
async function refreshFarm(db: Local, farm: string): Promise<void> {
  const path = { farm };
  const [brief, houses, alerts, tasks, groups, paddocks] = await Promise.all([
    getJson(urlOf('/v1/farms/{farm}/brief', path, {})),
    everyPage<{ id: string }>('/v1/farms/{farm}/houses', path, {}),
    everyPage<{ id: string }>('/v1/farms/{farm}/alerts', path, { status: 'active' }),
    everyPage<{ id: string }>('/v1/farms/{farm}/tasks', path, { status: 'open' }),
    everyPage<{ id: string }>('/v1/farms/{farm}/groups', path, {}),
    everyPage<{ id: string }>('/v1/farms/{farm}/paddocks', path, {}),
  ]);
  await refreshAnimals(db, farm);
  await db.put('meta', brief, `brief:${farm}`);
  await db.put('meta', houses, `houses:${farm}`);
  await replaceKind(db, farm, 'alert', alerts);
  await replaceKind(db, farm, 'task', tasks);
  await replaceKind(db, farm, 'group', groups);
  await replaceKind(db, farm, 'paddock', paddocks);
  // What is still queued is shown as the phone sees it, over the fresh data.
  for (const change of (await db.getAll('queue')) as Change[]) {
    if (change.state !== 'synced' && change.farm === farm) await applyLocally(db, change);
  }
  const asOf = new Date().toISOString();
  await db.put('meta', asOf, `asof:${farm}`);
  if (farm === farmId) set({ asOf });
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

// ---- The queue -------------------------------------------------------------------------------------------

let seq = 0;

async function countQueue(): Promise<void> {
  const db = await local();
  if (!db) return;
  const all = (await db.getAll('queue')) as Change[];
  set({
    waiting: all.filter((c) => c.state === 'waiting').length,
    attention: all.filter((c) => c.state === 'attention').length,
  });
}

/** The queue, oldest first. */
export async function listQueue(): Promise<Change[]> {
  const db = await local();
  if (!db) return [];
  return ((await db.getAll('queue')) as Change[]).sort((a, b) => a.seq - b.seq);
}

/** A name for an animal people recognise. */
function animalName(a: Partial<Animal> | undefined): string {
  return a?.tag ?? a?.name ?? a?.eid ?? a?.species ?? 'an animal';
}

async function labelOf(db: Local, call: QueuedCall): Promise<string> {
  const body = (call.body ?? {}) as Record<string, unknown>;
  const recordName = async (kind: Kind, id: string | undefined) => {
    const row = (await db.get('records', `${kind}:${id}`)) as LocalRecord | undefined;
    const data = row?.data as Record<string, string | null> | undefined;
    return kind === 'animal' ? animalName(data as Partial<Animal>) : (data?.title ?? data?.name ?? id ?? '');
  };
  switch (call.template) {
    case '/v1/tasks/{id}/done':
      return `Task done: ${await recordName('task', call.path.id)}`;
    case '/v1/farms/{farm}/tasks':
      return `New task: ${String(body.title ?? '')}`;
    case '/v1/farms/{farm}/events': {
      const subject = body.subject_type && body.subject_id ? String(body.subject_type) : null;
      const about =
        subject === 'animal' || subject === 'group' || subject === 'paddock'
          ? ` on ${await recordName(subject, String(body.subject_id))}`
          : subject
            ? ` on ${subject} ${String(body.subject_id)}`
            : '';
      return `Logged ${String(body.type)}${about}`;
    }
    case '/v1/farms/{farm}/animals':
      return `New animal: ${animalName(body as Partial<Animal>)}`;
    case '/v1/animals/{id}':
      return `Edited ${await recordName('animal', call.path.id)}: ${Object.keys(body).join(', ')}`;
    case '/v1/alerts/{id}/acknowledge': {
      const row = (await db.get('records', `alert:${call.path.id}`)) as LocalRecord | undefined;
      return `Acknowledged: ${String(row?.data.title ?? call.path.id)}`;
    }
    default:
      return `${call.method} ${call.template}`;
  }
}

/** Shows a change on the phone's data as if it were made; returns what the API would have answered. */
async function applyLocally(db: Local, change: Change): Promise<unknown> {
  const now = change.made_at;
  const body = (change.body ?? {}) as Record<string, unknown>;
  const merge = async (kind: Kind, id: string, patch: Record<string, unknown>) => {
    const row = (await db.get('records', `${kind}:${id}`)) as LocalRecord | undefined;
    if (!row) return { id, ...patch };
    row.data = { ...row.data, ...patch };
    await db.put('records', row);
    return row.data;
  };
  const add = async (kind: Kind, data: Record<string, unknown> & { id: string }) => {
    await db.put('records', { key: `${kind}:${data.id}`, farm: change.farm, kind, order: -change.seq, data });
    return data;
  };
  const id = change.path.id ?? '';
  switch (change.template) {
    case '/v1/tasks/{id}/done':
      return merge('task', id, { status: 'done', done_at: now });
    case '/v1/alerts/{id}/acknowledge':
      return merge('alert', id, { status: 'acknowledged', acknowledged_at: now });
    case '/v1/animals/{id}':
      return merge('animal', id, body);
    case '/v1/farms/{farm}/tasks':
      return add('task', {
        notes: null,
        due_at: null,
        due_date: null,
        assignee: null,
        alert_id: null,
        done_at: null,
        ...body,
        id: change.local_id ?? change.key,
        farm_id: change.farm,
        status: 'open',
        created_at: now,
      });
    case '/v1/farms/{farm}/animals':
      return add('animal', {
        name: null,
        tag: null,
        eid: null,
        sex: null,
        breed: null,
        birth_date: null,
        group_id: null,
        paddock_id: null,
        status: 'active',
        notes: null,
        fields: {},
        ...body,
        id: change.local_id ?? change.key,
        farm_id: change.farm,
        species: String(body.species ?? ''),
        created_at: now,
      });
    case '/v1/farms/{farm}/events':
      return eventOf(change);
    default:
      return null;
  }
}

/** Keeps a write for later and shows it on the phone at once (api() calls this offline). */
export async function queue(call: QueuedCall): Promise<unknown> {
  const db = await local();
  if (!db) throw new ApiError(0, 'network_error', 'Farmstead could not be reached, and nothing is kept.');
  const now = new Date();
  const body =
    call.template === '/v1/farms/{farm}/events'
      ? // An event keeps the time it happened, not the time it reaches the server.
        {
          ...(call.body as Record<string, unknown>),
          at: (call.body as { at?: string }).at ?? now.toISOString(),
        }
      : call.body;
  const creates = call.template === '/v1/farms/{farm}/animals' || call.template === '/v1/farms/{farm}/tasks';
  const change: Change = {
    key: call.key,
    seq: now.getTime() * 1000 + (seq++ % 1000),
    farm: call.path.farm ?? farmId ?? '',
    method: call.method,
    template: call.template,
    path: call.path,
    body,
    label: await labelOf(db, { ...call, body }),
    made_at: now.toISOString(),
    state: 'waiting',
    message: null,
    first_sent_at: call.sent ? now.getTime() : null,
    synced_at: null,
    local_id: creates ? `local_${call.key}` : null,
    server_id: null,
  };
  await db.put('queue', change);
  const answer = await applyLocally(db, change);
  await countQueue();
  void requestBackgroundSync();
  return answer;
}

/**
 * Asks the service worker to send the queue when the network returns, also with no console open (where the
 * browser has Background Sync: Chromium's).
 */
async function requestBackgroundSync(): Promise<void> {
  try {
    const registration = (await navigator.serviceWorker?.ready) as
      | (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } })
      | undefined;
    if (person) await registration?.sync?.register(`${SYNC_TAG_PREFIX}${person}`);
  } catch {
    // Not there, or refused: the app syncs on `online`, on start and from the button anyway.
  }
}

/** The person's database as the queue's sending (queue-send.ts) uses it. */
function storeOf(db: Local): QueueStore {
  return {
    changes: async () => (await db.getAll('queue')) as Change[],
    record: async (key) => (await db.get('records', key)) as LocalRecord | undefined,
    write: async ({ keep = [], forget = [], put = [], remove = [] }) => {
      const tx = db.transaction(['queue', 'records'], 'readwrite');
      const queue = tx.objectStore('queue');
      const records = tx.objectStore('records');
      await Promise.all([
        ...keep.map((c) => queue.put(c)),
        ...forget.map((key) => queue.delete(key)),
        ...remove.map((key) => records.delete(key)),
        ...put.map((r) => records.put(r)),
        tx.done,
      ]);
    },
  };
}

/** Sends every waiting change, oldest first, recounting the queue as it goes. */
async function pushQueue(db: Local): Promise<void> {
  const outcome = await sendQueue(storeOf(db), sendRaw, countQueue);
  await countQueue();
  // Changes still wait (no answer): the worker is asked again, in case the app is closed before the signal
  // returns (an earlier request may have been used up by the browser's own tries).
  if (outcome === 'later') void requestBackgroundSync();
}

/** Runs `work` alone across this person's tabs (Web Locks), or just runs it where there are none. */
async function alone(work: () => Promise<void>): Promise<void> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return work();
  await locks.request(syncLockOf(person ?? ''), work);
}

let running: Promise<void> | null = null;

/** Sends the queue, then refreshes the chosen farm; one run at a time. Never rejects. */
export function syncNow(): Promise<void> {
  running ??= (async () => {
    const db = await local();
    if (!db) return;
    set({ syncing: true });
    try {
      await alone(async () => {
        await pushQueue(db);
        if (farmId) await refreshFarm(db, farmId);
      });
      set({ online: true });
    } catch (err) {
      if (err instanceof ApiError && err.status === 0) set({ online: false });
    } finally {
      set({ syncing: false });
      running = null;
    }
  })();
  return running;
}

/**
 * Sends a change that needed attention again, as a new request with a new key: the server keeps a refused
 * request's answer under its key (and a key older than a day may be gone), so the old key would only get
 * the old answer. `body` is the fixed body, when the person changed it.
 */
export async function retry(change: Change, body?: unknown): Promise<void> {
  const db = await local();
  if (!db) return;
  const next: Change = {
    ...change,
    key: newKey(),
    state: 'waiting',
    message: null,
    first_sent_at: null,
    body: body === undefined ? change.body : body,
  };
  // One transaction: the queue never shows the change gone.
  const tx = db.transaction('queue', 'readwrite');
  await Promise.all([tx.store.delete(change.key), tx.store.put(next), tx.done]);
  await countQueue();
  await syncNow();
}

/** Drops a change from the queue (the phone's data is refreshed, so it no longer shows it). */
export async function discard(change: Change): Promise<void> {
  const db = await local();
  if (!db) return;
  await db.delete('queue', change.key);
  if (change.local_id) {
    await db.delete('records', `animal:${change.local_id}`);
    await db.delete('records', `task:${change.local_id}`);
  }
  await countQueue();
  if (status.online) await syncNow();
}
