/**
 * The field app as the rest of the console sees it (docs/offline.md): api()'s hooks, the sync triggers
 * (`online`, the service worker's Background Sync message), and the calls pages make. The work itself is in
 * offline-data.ts (IndexedDB through idb, the queue, the refresh), imported on first use, so a page's first
 * load carries only this and offline-status.ts.
 */
import { type Method, type QueuedCall, setOfflineHooks } from './api.ts';
import type { Boot, Change } from './offline-data.ts';
import { set, status } from './offline-status.ts';

export { type OfflineStatus, status, useOffline } from './offline-status.ts';
export type { Boot, Change };

const data = () => import('./offline-data.ts');

/** The writes that can wait for a connection (the rest, house commands included, never are queued). */
const QUEUEABLE: Record<string, Method> = {
  '/v1/tasks/{id}/done': 'POST',
  '/v1/farms/{farm}/tasks': 'POST',
  '/v1/farms/{farm}/events': 'POST',
  '/v1/farms/{farm}/animals': 'POST',
  '/v1/animals/{id}': 'PATCH',
  '/v1/alerts/{id}/acknowledge': 'POST',
  // The herd book's treatments (issue 46: a group is one request, one key) and chute weights (issue 47).
  '/v1/farms/{farm}/treatments': 'POST',
  '/v1/animals/{id}/weights': 'POST',
};

/** The member of a queueable write's body that says when it was made (the server takes it as given). */
const TIMED: Record<string, string> = {
  '/v1/farms/{farm}/events': 'at',
  '/v1/tasks/{id}/done': 'done_at',
  '/v1/alerts/{id}/acknowledge': 'acknowledged_at',
  '/v1/farms/{farm}/treatments': 'at',
  '/v1/animals/{id}/weights': 'at',
};

export const startLocal = async (person: string, farm: string | null) =>
  (await data()).startLocal(person, farm);
export const chooseLocalFarm = async (farm: string | null) => (await data()).chooseLocalFarm(farm);
export const keepBoot = async (boot: Boot) => (await data()).keepBoot(boot);
export const offlineBoot = async () => (await data()).offlineBoot();
export const unsyncedCount = async () => (await data()).unsyncedCount();
export const forgetLocal = async () => (await data()).forgetLocal();
export const syncNow = async () => (await data()).syncNow();
export const listQueue = async () => (await data()).listQueue();
export const retry = async (change: Change, body?: unknown) => (await data()).retry(change, body);
export const discard = async (change: Change) => (await data()).discard(change);

setOfflineHooks({
  read: async (template, path, query) => (await data()).read(template, path, query),
  queueable: (method, template) => QUEUEABLE[template] === method,
  queue: async (call: QueuedCall) => (await data()).queue(call),
  prepare: (template, body) => {
    // A change keeps the time it was made, also when its first attempt gets no answer and it is resent: an
    // event its `at`, a task marked done its `done_at`, an acknowledgement its `acknowledged_at`.
    const member = TIMED[template];
    if (!member || (body as Record<string, unknown> | null)?.[member]) return body;
    return { ...((body as object | null) ?? {}), [member]: new Date().toISOString() };
  },
  reached: (reached) => {
    if (reached === status.online) return;
    set({ online: reached });
    if (reached) void syncNow();
  },
});

/**
 * While changes wait, the app tries again every so often: the browser's `online` event is not always told
 * (a tab opened offline, a signal back without the browser noticing), and nothing may rely on it.
 */
export const RETRY_MS = 15_000;
setInterval(() => {
  if (status.waiting > 0 && !status.syncing && navigator.onLine) void syncNow();
}, RETRY_MS);
addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && status.waiting > 0) void syncNow();
});
addEventListener('online', () => {
  set({ online: true });
  void syncNow();
});
addEventListener('offline', () => set({ online: false }));
navigator.serviceWorker?.addEventListener('message', (event: MessageEvent) => {
  if ((event.data as { type?: string } | null)?.type === 'sync') void syncNow();
});
let hadController = Boolean(navigator.serviceWorker?.controller);
navigator.serviceWorker?.addEventListener('controllerchange', () => {
  if (hadController) set({ updated: true });
  hadController = true;
});
