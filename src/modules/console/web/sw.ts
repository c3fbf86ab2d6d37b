/**
 * The console's service worker (served at /sw.js, a classic script: no imports). Small on purpose:
 *  - versioned: the server puts the console bundle's hash in VERSION, so each deploy is a new worker that
 *    takes over at once and deletes every cache of an older version;
 *  - offline (docs/offline.md): on install it caches the console's HTML and every file of this version
 *    (PRECACHE, the server's list) in `farmstead-<VERSION>-shell`, and refuses to install if the HTML it got
 *    is of another version (no mixed versions); a page opened without a network gets the cached HTML, and
 *    the console's files come from the cache first (they never change under one URL);
 *  - Background Sync: a `sync` event for a person's queue asks the open console windows to send it; with none
 *    open, the worker sends it itself (queue-send.ts, the page's own code, put before this file's by the
 *    server), as that person if they are still the one signed in. The app also syncs on `online`, on start,
 *    every 15 s while changes wait and from its button, so nothing relies on it;
 *  - push: shows the notification the server sent (modules/notifications: title, body with reason, farm
 *    and time), with the actions Acknowledge and Open, `requireInteraction` for urgent alerts;
 *  - notificationclick: Acknowledge posts the notification's single-use token to
 *    /v1/notifications/acknowledge (no console opened); Open or a tap opens the alert.
 */

import type { Change, LocalRecord, QueueStore, Sender } from './queue-send.ts';

declare const VERSION: string;
/** Every URL of this version to keep for offline use: the console's files, the manifest and icons. */
declare const PRECACHE: string[];
// queue-send.ts's code, which the server puts before this file's (a classic script imports nothing).
declare const sendQueue: typeof import('./queue-send.ts').sendQueue;
declare const syncLockOf: typeof import('./queue-send.ts').syncLockOf;
declare const databaseOf: typeof import('./queue-send.ts').databaseOf;
declare const SYNC_TAG_PREFIX: typeof import('./queue-send.ts').SYNC_TAG_PREFIX;

/** The parts of the worker's global scope used here (the DOM library has no service worker types). */
interface WorkerScope {
  registration: {
    showNotification(title: string, options: Record<string, unknown>): Promise<void>;
  };
  clients: {
    claim(): Promise<void>;
    matchAll(options: { type: string; includeUncontrolled: boolean }): Promise<WindowClientLike[]>;
    openWindow(url: string): Promise<unknown>;
  };
  skipWaiting(): Promise<void>;
  addEventListener(type: string, listener: (event: WorkerEvent) => void): void;
}
interface FetchEventLike {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface WindowClientLike {
  url: string;
  postMessage(message: unknown): void;
  focus(): Promise<unknown>;
  navigate(url: string): Promise<unknown>;
}
interface WorkerEvent {
  waitUntil(promise: Promise<unknown>): void;
  /** A `sync` event's tag. */
  tag?: string;
  data?: { json(): unknown } | null;
  action?: string;
  notification?: { data: unknown; close(): void };
}

/** What the server pushes (modules/notifications/channels/push.ts, PushPayload). */
interface Pushed {
  id: string;
  kind: string;
  title: string;
  body: string;
  severity: string | null;
  farm: string | null;
  alert_id: string | null;
  at: string;
  url: string;
  ack_token: string | null;
  ack_url: string;
  /** The buttons' words in the person's language (absent from a server before issue 45: English). */
  labels?: { acknowledge: string; open: string };
}

const worker = self as unknown as WorkerScope;
const CACHE_PREFIX = 'farmstead-';
const SHELL = `${CACHE_PREFIX}${VERSION}-shell`;
/** The one HTML page every console path answers, kept under this key. */
const PAGE = '/';

/** Caches this version's page and files; fails (and the old worker stays) if any is missing or another version's. */
async function precache(): Promise<void> {
  const cache = await caches.open(SHELL);
  const page = await fetch(PAGE, { cache: 'no-store', credentials: 'same-origin' });
  const html = await page.clone().text();
  if (!page.ok || !html.includes(`/console/assets/${VERSION}/`)) {
    throw new Error(`the console page is not of version ${VERSION}`);
  }
  await cache.put(PAGE, page);
  await cache.addAll(PRECACHE);
}

worker.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => worker.skipWaiting()));
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(CACHE_PREFIX) && !name.startsWith(`${CACHE_PREFIX}${VERSION}`)) {
          await caches.delete(name);
        }
      }
      await worker.clients.claim();
    })(),
  );
});

/** A page: the network's, else (offline) the cached console page, which routes any path itself. */
async function page(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (err) {
    const cached = await caches.open(SHELL).then((cache) => cache.match(PAGE));
    if (cached) return cached;
    throw err;
  }
}

/** A console file: from this version's cache, else the network. */
async function file(request: Request): Promise<Response> {
  const cached = await caches.open(SHELL).then((cache) => cache.match(request));
  return cached ?? fetch(request);
}

worker.addEventListener('fetch', (event) => {
  const { request } = event as unknown as FetchEventLike;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== location.origin) return;
  const respond = (event as unknown as FetchEventLike).respondWith.bind(event);
  if (request.mode === 'navigate' && !url.pathname.startsWith('/v1/') && url.pathname !== '/sw.js') {
    respond(page(request));
  } else if (url.pathname.startsWith('/console/assets/') || PRECACHE.includes(url.pathname)) {
    respond(file(request));
  }
});

worker.addEventListener('sync', (event) => {
  const tag = event.tag ?? '';
  if (tag.startsWith(SYNC_TAG_PREFIX)) event.waitUntil(backgroundSync(tag.slice(SYNC_TAG_PREFIX.length)));
});

/**
 * Background Sync of a person's queue: an open console sends it itself (it is asked to); with none open, the
 * worker sends it. Rejects while changes still wait (no answer), so the browser tries again later.
 */
async function backgroundSync(person: string): Promise<void> {
  const open = await worker.clients.matchAll({ type: 'window', includeUncontrolled: false });
  if (open.length > 0) {
    for (const client of open) client.postMessage({ type: 'sync' });
    return;
  }
  const send = await senderAs(person);
  const db = send && (await openQueue(person));
  if (!send || !db) return;
  try {
    const run = () => sendQueue(storeIn(db), send);
    // The same lock as the console's tabs: one sender at a time.
    const locks = (navigator as Navigator & { locks?: LockManager }).locks;
    const outcome = locks ? await locks.request(syncLockOf(person), run) : await run();
    if (outcome === 'later') throw new Error('Changes still wait for an answer from Farmstead.');
  } finally {
    db.close();
  }
}

/**
 * Sends as the person signed in on this phone (the session cookie, and its CSRF token); null when nobody is,
 * or someone else is: their changes wait for them to open the console again.
 */
async function senderAs(person: string): Promise<Sender | null> {
  const session = await fetch('/v1/session', { headers: { accept: 'application/json' } });
  if (session.status === 401) return null;
  if (!session.ok) throw new Error(`Farmstead answered ${session.status} for the session.`);
  const signedIn = (await session.json()) as { person?: { id?: string }; csrf_token?: string };
  const csrf = signedIn.csrf_token;
  if (signedIn.person?.id !== person || !csrf) return null;
  return async (method, url, body, headers) => {
    const refused = (status: number, message: string, param?: string, code?: string) =>
      Object.assign(new Error(message), { status, param, code });
    let answer: Response;
    try {
      answer = await fetch(url, {
        method,
        headers: {
          accept: 'application/json',
          'content-type': 'application/json',
          'x-csrf-token': csrf,
          ...headers,
        },
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch {
      throw refused(0, 'Farmstead could not be reached.');
    }
    const data: unknown = answer.status === 204 ? null : await answer.json().catch(() => null);
    if (!answer.ok) {
      const error = (data as { error?: { message?: string; param?: string; code?: string } } | null)?.error;
      throw refused(
        answer.status,
        error?.message ?? `Farmstead answered ${answer.status}.`,
        error?.param,
        error?.code,
      );
    }
    return { data, replayed: answer.headers.get('idempotent-replayed') === 'true' };
  };
}

/** The person's database on this phone, or null when there is none (they signed out: it was deleted). */
function openQueue(person: string): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    const request = indexedDB.open(databaseOf(person));
    // No such database: do not make an empty one (aborting its creation removes it again).
    request.onupgradeneeded = () => request.transaction?.abort();
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => resolve(null);
  });
}

/** The queue's storage in plain IndexedDB (the page uses idb, which a classic script cannot import). */
function storeIn(db: IDBDatabase): QueueStore {
  const result = <T>(request: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => {
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  return {
    changes: () => result(db.transaction('queue').objectStore('queue').getAll() as IDBRequest<Change[]>),
    record: (key) =>
      result(
        db.transaction('records').objectStore('records').get(key) as IDBRequest<LocalRecord | undefined>,
      ),
    write: ({ keep = [], forget = [], put = [], remove = [] }) =>
      new Promise((resolve, reject) => {
        const tx = db.transaction(['queue', 'records'], 'readwrite');
        const queue = tx.objectStore('queue');
        const records = tx.objectStore('records');
        for (const change of keep) queue.put(change);
        for (const key of forget) queue.delete(key);
        for (const key of remove) records.delete(key);
        for (const record of put) records.put(record);
        tx.oncomplete = () => resolve();
        tx.onerror = () => reject(tx.error);
        tx.onabort = () => reject(tx.error);
      }),
  };
}

/** The notification a push shows: title, body, the actions, and the payload kept for the click. */
function notificationOf(pushed: Pushed): { title: string; options: Record<string, unknown> } {
  const urgent = pushed.kind === 'alert' && pushed.severity === 'urgent';
  const labels = pushed.labels ?? { acknowledge: 'Acknowledge', open: 'Open' };
  const actions = pushed.ack_token
    ? [
        { action: 'acknowledge', title: labels.acknowledge },
        { action: 'open', title: labels.open },
      ]
    : [{ action: 'open', title: labels.open }];
  return {
    title: pushed.title,
    options: {
      body: pushed.body,
      tag: pushed.alert_id ? `alert-${pushed.alert_id}` : pushed.id,
      renotify: true,
      timestamp: Date.parse(pushed.at) || Date.now(),
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      requireInteraction: urgent,
      actions,
      data: pushed,
    },
  };
}

worker.addEventListener('push', (event) => {
  const pushed = (event.data?.json() ?? null) as Pushed | null;
  if (!pushed) return;
  const { title, options } = notificationOf(pushed);
  event.waitUntil(worker.registration.showNotification(title, options));
});

/** Opens (or focuses) the console at `url`. */
async function openConsole(url: string): Promise<void> {
  const open = await worker.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const same = open.find((c) => new URL(c.url).origin === new URL(url).origin);
  if (same) {
    await same.navigate(url);
    await same.focus();
    return;
  }
  await worker.clients.openWindow(url);
}

/**
 * What a click on the notification does: Acknowledge posts the token (and opens the alert if that is
 * refused, so the person can act there); Open or a tap on the body opens the alert.
 */
async function onNotificationAction(action: string, pushed: Pushed): Promise<void> {
  if (action === 'acknowledge' && pushed.ack_token) {
    // Its own origin's endpoint (the payload's ack_url names the same, from FARMSTEAD_PUBLIC_URL).
    const response = await fetch('/v1/notifications/acknowledge', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: pushed.ack_token }),
    }).catch(() => null);
    if (response?.ok) return;
  }
  await openConsole(pushed.url);
}

worker.addEventListener('notificationclick', (event) => {
  const notification = event.notification;
  if (!notification) return;
  notification.close();
  event.waitUntil(onNotificationAction(event.action ?? '', notification.data as Pushed));
});
