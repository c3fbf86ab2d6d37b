/**
 * A short-lived, per-process cache of authenticated keys (API keys and device keys), so a request does not
 * look its key up in the database every time. Revocation stays immediate:
 *  - in this process, the services that revoke, rotate or delete (keys, devices, farms, sample reset) call
 *    `forgetApiKey` / `forgetDevice` / `forgetFarmDevices` after their transaction commits;
 *  - in other processes (PostgreSQL), the same services NOTIFY inside their transaction and every process
 *    LISTENs (`listenForKeyChanges`), dropping the entry when the notification arrives (milliseconds);
 *  - whatever happens to notifications (a dropped LISTEN connection, a change made by hand in SQL), an entry
 *    lives at most KEY_CACHE_TTL_MS, counted from the moment its lookup started: the hard bound.
 * Only successful lookups are cached (an unknown key always reaches the database). A lookup that was in
 * flight when anything was forgotten is not cached, so a result read before a revocation committed can
 * never outlive the notification of that revocation. Entries are keyed by the key's SHA-256 hash and the
 * database handle, so apps on different databases in one process (tests) never share an entry.
 */

import { BUS_CHANNELS, type Bus, openBus } from '../db/notify.ts';
import type { Db } from '../db/schema.ts';
import type { CachedApiKey, DeviceCaller } from './callers.ts';

/** The longest a cached key is trusted without asking the database again. */
export const KEY_CACHE_TTL_MS = 500;
const MAX_ENTRIES = 10_000;

interface Entry<T> {
  db: Db;
  value: T;
  /** What `forget` matches: a key id, or a device id. */
  id: string;
  /** For device keys: the device's farm (farm deletion and sample reset drop them all). */
  farmId: string | null;
  expiresAt: number;
}

export class KeyCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private generation = 0;
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /**
   * The cached value for `hash` on `db`, or `load()`'s answer (cached when it found a key and nothing
   * was forgotten meanwhile).
   */
  async lookup(
    db: Db,
    hash: string,
    load: () => Promise<{ value: T; id: string; farmId?: string } | null>,
  ): Promise<T | null> {
    const started = this.now();
    const hit = this.entries.get(hash);
    if (hit && hit.db === db && hit.expiresAt > started) return hit.value;
    const generation = this.generation;
    const found = await load();
    if (!found) return null;
    if (generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(hash, {
        db,
        value: found.value,
        id: found.id,
        farmId: found.farmId ?? null,
        expiresAt: started + KEY_CACHE_TTL_MS,
      });
    }
    return found.value;
  }

  /** Drops every entry for this key (or device) id, and keeps any lookup now in flight from being cached. */
  forget(id: string): void {
    this.forgetWhere((entry) => entry.id === id);
  }

  forgetFarm(farmId: string): void {
    this.forgetWhere((entry) => entry.farmId === farmId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  private forgetWhere(match: (entry: Entry<T>) => boolean): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (match(entry)) this.entries.delete(hash);
  }
}

/** Process-wide: every app in this process shares them (entries are per database handle). */
export const apiKeyCache = new KeyCache<CachedApiKey>();
export const deviceKeyCache = new KeyCache<Omit<DeviceCaller, 'kind'>>();

/** A revoked API key stops working in this process now (call after the revoking transaction commits). */
export function forgetApiKey(keyId: string): void {
  apiKeyCache.forget(keyId);
}

/** A rotated or deleted device key stops working in this process now. */
export function forgetDevice(deviceId: string): void {
  deviceKeyCache.forget(deviceId);
}

/** Every device key of the farm stops working in this process now (the farm was deleted or reset). */
export function forgetFarmDevices(farmId: string): void {
  deviceKeyCache.forgetFarm(farmId);
}

/**
 * On PostgreSQL, other processes revoke keys too: LISTEN for their notifications (one connection per
 * app, opened on the first call). A reconnect may have missed some, so it clears both caches. On SQLite
 * one process owns the database and the services forget directly: nothing to listen to.
 */
export class KeyChangeListener {
  private busReady: Promise<Bus> | null = null;
  private readonly databaseUrl: string | null;
  private readonly onError: (err: Error) => void;

  constructor(databaseUrl: string | null, onError: (err: Error) => void) {
    this.databaseUrl = databaseUrl;
    this.onError = onError;
  }

  /** Starts listening (once); lookups do not wait for it, the TTL bounds any entry made meanwhile. */
  ensure(): void {
    if (!this.databaseUrl || this.busReady) return;
    this.busReady = (async () => {
      const bus = openBus({
        databaseUrl: this.databaseUrl,
        onReconnect: () => {
          apiKeyCache.clear();
          deviceKeyCache.clear();
        },
        onError: this.onError,
      });
      await bus.listen(BUS_CHANNELS.apiKeys, (keyId) => forgetApiKey(keyId));
      await bus.listen(BUS_CHANNELS.deviceKeys, (deviceId) => forgetDevice(deviceId));
      await bus.listen(BUS_CHANNELS.farmDevices, (farmId) => forgetFarmDevices(farmId));
      return bus;
    })();
    this.busReady.catch((err: unknown) => {
      this.onError(err as Error);
      this.busReady = null;
    });
  }

  async close(): Promise<void> {
    const ready = this.busReady;
    this.busReady = null;
    const bus = await ready?.catch(() => null);
    await bus?.close();
  }
}
