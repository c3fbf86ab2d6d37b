/**
 * The console's service worker (served at /sw.js, a classic script: no imports). Small on purpose:
 *  - versioned: the server puts the console bundle's hash in VERSION, so each deploy is a new worker that
 *    takes over at once and deletes every cache of an older version;
 *  - offline (docs/offline.md): on install it caches the console's HTML and every file of this version
 *    (PRECACHE, the server's list) in `farmstead-<VERSION>-shell`, and refuses to install if the HTML it got
 *    is of another version (no mixed versions); a page opened without a network gets the cached HTML, and
 *    the console's files come from the cache first (they never change under one URL);
 *  - Background Sync: a `sync` event asks the open console windows to send their queue (the app does the
 *    sending, and also syncs on `online`, on start and from its button, so nothing relies on this);
 *  - push: shows the notification the server sent (modules/notifications: title, body with reason, farm
 *    and time), with the actions Acknowledge and Open, `requireInteraction` for urgent alerts;
 *  - notificationclick: Acknowledge posts the notification's single-use token to
 *    /v1/notifications/acknowledge (no console opened); Open or a tap opens the alert.
 */

declare const VERSION: string;
/** Every URL of this version to keep for offline use: the console's files, the manifest and icons. */
declare const PRECACHE: string[];

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
  data?: { json(): unknown } | null;
  action?: string;
  notification?: { data: unknown; close(): void };
}

/** What the server pushes (modules/notifications/delivery.ts, PushPayload). */
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
  event.waitUntil(
    worker.clients.matchAll({ type: 'window', includeUncontrolled: false }).then((open) => {
      for (const client of open) client.postMessage({ type: 'sync' });
    }),
  );
});

/** The notification a push shows: title, body, the actions, and the payload kept for the click. */
function notificationOf(pushed: Pushed): { title: string; options: Record<string, unknown> } {
  const urgent = pushed.kind === 'alert' && pushed.severity === 'urgent';
  const actions = pushed.ack_token
    ? [
        { action: 'acknowledge', title: 'Acknowledge' },
        { action: 'open', title: 'Open' },
      ]
    : [{ action: 'open', title: 'Open' }];
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
