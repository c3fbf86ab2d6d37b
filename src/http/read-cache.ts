/**
 * The read cache: a route marked `config: { readCache: true }` (a record, a farm's record lists, its houses,
 * a house, the brief) answers a GET with the very body it last sent to the same credential for the same URL,
 * as long as nothing has been committed to the database since that body was read. The data version
 * (db/data-version.ts) is read before the handler's reads, so a stored body is never older than its
 * version, and any commit, in any process, makes the next request read afresh: the answer is always the one
 * a fresh read would give. It saves the reads, the mapping, the serialisation and the UTF-8 encoding of what
 * many clients (every phone's console, an agent polling) ask for between writes. The requests of one
 * event-loop turn share one version read (`freshDataVersion`), so a crowd of hits costs one statement (on
 * PostgreSQL one round trip) instead of one each. A database written to all the time gains nothing and
 * loses one cheap statement a request.
 *
 * Mark only routes whose body is a function of the stored data, the caller and the URL (no randomness); a
 * body that also depends on the clock (the brief's "overdue", "quiet for 3 h") is marked with how long it
 * may be served again (`{ maxAgeMs }`), and says in itself when it was made (`generated_at`).
 * Authentication, permissions, rate limits and usage counting still run on every request (they are hooks
 * before this one); the key includes the credential (an API key, or a signed-in person: their role is
 * theirs), so one caller's answer never reaches another. Only 200 bodies are kept (a deleted record is a
 * fresh 404). Bounded by bytes; the least recently stored bodies go first.
 *
 * Requests that miss while another request is already reading the same key at the same version wait for
 * its body instead of reading it again: after every commit the whole crowd of callers of a list or the
 * brief would otherwise read, build and serialise it at once (on a busy server, one crowd per usage flush),
 * which is what their slowest answers and the server's peak memory were made of. If the first read does not
 * end in a 200 body (an error, a 404), each waiting request reads for itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { freshDataVersion } from '../db/data-version.ts';
import type { Db } from '../db/schema.ts';
import { metrics } from '../lib/metrics.ts';

/** The bodies kept, in bytes. */
export const READ_CACHE_BYTES = 8 * 1024 * 1024;
/** Larger bodies are not kept: one long export-sized page would push out hundreds of lists. */
const MAX_BODY_BYTES = 512 * 1024;
/** What a kept body is sent as (every marked route answers JSON). */
const JSON_TYPE = 'application/json; charset=utf-8';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * GET answers may come from the read cache (http/read-cache.ts): true while nothing is committed;
     * `{ maxAgeMs }` also for no longer than that after they were read (bodies that depend on the clock).
     */
    readCache?: true | { maxAgeMs: number };
  }
  interface FastifyRequest {
    /** Where this request's fresh body is to be kept: its key and the data version read before it. */
    readCacheSlot: { key: string; version: string; at: number; flight: Flight | null } | null;
  }
}

/** One request's read of a key at a version, which later requests with the same key and version wait on. */
export interface Flight {
  /** The body the read gave (kept in the cache too), or nothing: the waiting requests then read for themselves. */
  settle(json: string | undefined): void;
}

interface Kept {
  version: string;
  /** When the version was read (epoch ms). */
  at: number;
  /** UTF-8, as sent: encoding a long list for the socket again on every answer costs as much as the rest. */
  body: Buffer;
}

/** Bodies by key, each valid for one data version; bounded by their total length. */
export class ReadCache {
  readonly #entries = new Map<string, Kept>();
  /** Reads under way, by key (at most one a key: the latest version asked for). */
  readonly #flights = new Map<string, { version: string; body: Promise<Buffer | undefined> }>();
  #size = 0;
  readonly maxBytes: number;

  constructor(maxBytes: number = READ_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** The body kept under `key` for `version`, if it was read no more than `maxAgeMs` before `now`. */
  get(key: string, version: string, now = 0, maxAgeMs = Number.POSITIVE_INFINITY): Buffer | undefined {
    const kept = this.#entries.get(key);
    if (!kept || kept.version !== version) return undefined;
    return now >= kept.at && now - kept.at < maxAgeMs ? kept.body : undefined;
  }

  /** Keeps `json` as the body of `key` at `version`; returns it as kept (undefined: too large to keep). */
  set(key: string, version: string, json: string, at = 0): Buffer | undefined {
    if (json.length > MAX_BODY_BYTES || json.length > this.maxBytes) return undefined;
    const body = Buffer.from(json);
    this.#forget(key);
    this.#entries.set(key, { version, at, body });
    this.#size += key.length + body.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#size <= this.maxBytes) break;
      this.#forget(oldest);
    }
    return body;
  }

  /** The body a read under way for `key` at `version` will give (undefined if it gives none), if one is. */
  pending(key: string, version: string): Promise<Buffer | undefined> | undefined {
    const flight = this.#flights.get(key);
    return flight?.version === version ? flight.body : undefined;
  }

  /**
   * Marks `key` as being read at `version` (read at `at`). Settling it keeps the body, as `set` does, and hands
   * it to the requests waiting on `pending`; only the first settle counts.
   */
  begin(key: string, version: string, at = 0): Flight {
    let resolve!: (body: Buffer | undefined) => void;
    const flight = { version, body: new Promise<Buffer | undefined>((r) => (resolve = r)) };
    this.#flights.set(key, flight);
    let settled = false;
    return {
      settle: (json) => {
        if (settled) return;
        settled = true;
        if (this.#flights.get(key) === flight) this.#flights.delete(key);
        if (json === undefined) return resolve(undefined);
        resolve(this.set(key, version, json, at) ?? Buffer.from(json));
      },
    };
  }

  get bytes(): number {
    return this.#size;
  }

  #forget(key: string): void {
    const kept = this.#entries.get(key);
    if (!kept) return;
    this.#entries.delete(key);
    this.#size -= key.length + kept.body.length;
  }
}

export function registerReadCache(app: FastifyInstance, deps: { db: Db; cache?: ReadCache }): void {
  const { db } = deps;
  const cache = deps.cache ?? new ReadCache();
  app.decorateRequest('readCacheSlot', null);

  // preHandler: after authentication, permissions and query validation. A callback hook (observe.ts): the
  // requests it has nothing to do for pay no promise.
  app.addHook('preHandler', (request, reply, done) => {
    const marked = request.routeOptions.config.readCache;
    const caller = request.caller;
    if (request.method !== 'GET' || marked === undefined || caller?.kind !== 'api') return done();
    readThrough(request, reply, caller, marked).then(() => done(), done);
  });

  /**
   * Answers from the cache, or from a read under way, or marks the request to fill the cache. An answer is
   * returned as `reply.send()`'s reply, which is thenable: the hook's `done` then waits until it is sent
   * (calling it sooner broke compressed answers).
   */
  async function readThrough(
    request: FastifyRequest,
    reply: FastifyReply,
    caller: { keyId: string; mode: string },
    marked: true | { maxAgeMs: number },
  ): Promise<unknown> {
    const key = `${caller.keyId} ${caller.mode} ${request.url}`;
    const at = Date.now();
    const version = await freshDataVersion(db);
    const body = cache.get(key, version, at, marked === true ? undefined : marked.maxAgeMs);
    if (body !== undefined) {
      metrics.readCache.inc({ result: 'hit' });
      return reply.type(JSON_TYPE).send(body);
    }
    const underWay = cache.pending(key, version);
    if (underWay) {
      const shared = await underWay;
      if (shared !== undefined) {
        metrics.readCache.inc({ result: 'shared' });
        return reply.type(JSON_TYPE).send(shared);
      }
    }
    metrics.readCache.inc({ result: 'miss' });
    // A request that waited in vain reads for itself without making the others wait on it again.
    request.readCacheSlot = { key, version, at, flight: underWay ? null : cache.begin(key, version, at) };
    return undefined;
  }

  // Before compression (its hooks are the routes' own, which run after these): the body as serialised.
  // Every answer passes here, an error's too (a dropped request's handler still answers), so a read that
  // others wait on always settles.
  app.addHook('onSend', (request, reply, payload, done) => {
    const slot = request.readCacheSlot;
    if (slot) {
      request.readCacheSlot = null;
      const json = reply.statusCode === 200 && typeof payload === 'string' ? payload : undefined;
      if (slot.flight) slot.flight.settle(json);
      else if (json !== undefined) cache.set(slot.key, slot.version, json, slot.at);
    }
    done(null, payload);
  });
}
