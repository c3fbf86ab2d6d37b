/**
 * The field app's data (docs/offline.md), loaded on demand by offline.ts: what the console keeps on the
 * phone, and the changes it keeps for later. This file is the entry offline.ts imports, and the sync;
 * the parts are named for what they do:
 *
 *  - offline-db.ts: one IndexedDB database per signed-in person (through idb): the session, farms and
 *    catalog (GET /v1/catalog, which the houses page reads) to start without a network; per farm the brief,
 *    the houses, the open alerts and tasks, the groups, paddocks, medicines, devices and the whole herd.
 *  - offline-reads.ts: api() asks `read` for a GET the network cannot answer (typed from api-types.ts).
 *  - offline-changes.ts: api() asks `queue` for a write that can wait: mark a task done, add a task, log an
 *    event, add or edit an animal, acknowledge an alert. Each change keeps its own Idempotency-Key and the
 *    time it was made (an event's `at`), and is shown on the phone at once.
 *  - offline-refresh.ts: the farm's data brought up to date (the herd by what changed since).
 *  - background-sync.ts: the service worker asked to send the queue when the network returns.
 *  - `syncNow()` (here) sends the waiting changes in order (queue-send.ts, which the service worker runs
 *    too), then refreshes the farm: under a Web Lock, so two tabs never send at once (and the key makes a
 *    change sent twice one record anyway).
 */
import { ApiError, newKey, sendRaw } from './api.ts';
import { requestBackgroundSync } from './background-sync.ts';
import { countQueue, currentFarm, currentPerson, type Local, local } from './offline-db.ts';
import { refreshFarm } from './offline-refresh.ts';
import { set, status } from './offline-status.ts';
import { type Change, type LocalRecord, type QueueStore, sendQueue, syncLockOf } from './queue-send.ts';

export { listQueue, queue } from './offline-changes.ts';
export {
  type Boot,
  chooseLocalFarm,
  forgetLocal,
  keepBoot,
  offlineBoot,
  startLocal,
  unsyncedCount,
} from './offline-db.ts';
export { read } from './offline-reads.ts';
export type { Change };

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
  if (outcome === 'later') void requestBackgroundSync(currentPerson());
}

/** Runs `work` alone across this person's tabs (Web Locks), or just runs it where there are none. */
async function alone(work: () => Promise<void>): Promise<void> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  if (!locks) return work();
  await locks.request(syncLockOf(currentPerson() ?? ''), work);
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
        const farm = currentFarm();
        if (farm) await refreshFarm(db, farm);
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
    note: null,
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
