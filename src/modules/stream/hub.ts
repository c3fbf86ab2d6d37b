/**
 * The process's live streams. One hub per app: it listens on the bus (one LISTEN connection per process
 * on PostgreSQL) for "farm X has a new outbox row", numbers the farm's new rows in commit order
 * (`sequenceOutbox`), reads them once per farm and fans them out to that farm's connections. A safety poll
 * covers a notification lost while the LISTEN connection was down.
 *
 * A connection first catches up on its own (from its Last-Event-ID, waiting for the socket to drain), then
 * joins the farm's live fan-out. A live client that falls too far behind is ended, and resumes with its
 * Last-Event-ID: the database, not the process's memory, holds what it has not seen yet.
 */
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { PassThrough } from 'node:stream';
import { setTimeout as setTimeoutPromise } from 'node:timers/promises';
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.ts';
import { BUS_CHANNELS, type Bus, openBus } from '../../db/notify.ts';
import { commentFrame, eventFrame, positionFrame, reportFrame, resetFrame, retryFrame } from './frames.ts';
import { watchReports } from './report-signal.ts';
import {
  devicesReportedSince,
  latestByDevice,
  newestEvent,
  reportedDevices,
  rowsAfter,
  type StreamRow,
  seqOfEvent,
  sequenceOutbox,
} from './repository.ts';

/** Rows read at a time. */
const PAGE = 500;
/** A live connection with more than this buffered and unsent is too slow: it is ended and resumes later. */
const MAX_BUFFERED_BYTES = 1_048_576;
/** How long EventSource clients wait before reconnecting (sent as `retry:`). */
const RECONNECT_MS = 2_000;
const SHUTDOWN_NOTE = 'the server is shutting down; reconnect with Last-Event-ID to resume';
/** How long a shutdown waits for ended streams to flush before closing their sockets anyway. */
const FLUSH_ON_CLOSE_MS = 1_000;
/**
 * A report's `last_seen_at` is when it arrived; it commits a little later. Device reports are read from
 * this far behind the newest seen, so one that committed late is not skipped (frames already sent are not
 * sent again).
 */
const REPORT_LOOKBACK_MS = 5_000;
/** Device reports read per pass of a farm. */
const REPORT_PAGE = 200;

export interface StreamHubOptions {
  database: Database;
  databaseUrl: string | null;
  log: FastifyBaseLogger;
  /** Comment lines on an idle stream, so proxies and clients see it alive. */
  keepAliveMs: number;
  /** The safety poll of the farms with open streams. */
  pollMs: number;
}

export interface OpenStream {
  farmId: string;
  /** The client's Last-Event-ID, or null for a stream from now. */
  lastEventId: string | null;
  /** Whether this caller may see events of this type (its read permissions). */
  accepts(type: string, data: string): boolean;
  /** Whether to send `device.reported` frames (the client asked, and may read readings). */
  reports: boolean;
  /** Re-checked with each keep-alive: false (key revoked, farm gone) ends the stream. */
  stillAllowed(): Promise<boolean>;
  body: PassThrough;
  response: ServerResponse;
}

interface Connection extends OpenStream {
  /** The `seq` of the last row sent or skipped. */
  cursor: number;
  live: boolean;
  ended: boolean;
  keepAlive: NodeJS.Timeout;
  checking: boolean;
  /** Device reports from this time on (the stream's opening) are sent. */
  reportsFrom: number;
  /** The report time of the last frame sent per device, and the state text it carried. */
  reportsSent: Map<string, number>;
  statesSent: Map<string, string>;
}

export class StreamHub {
  private readonly farms = new Map<string, Set<Connection>>();
  private readonly dirty = new Set<string>();
  /** Farms with a report to send to their `device.reported` streams. */
  private readonly reportsDirty = new Set<string>();
  /** Per farm with such streams: the newest report time read, and the end of its in-process watch. */
  private readonly reportWatch = new Map<string, { newest: number; unwatch: () => void }>();
  private pumping: Promise<void> | null = null;
  private bus: Bus | null = null;
  private busReady: Promise<void> | null = null;
  private readonly poll: NodeJS.Timeout;
  private closed = false;
  private readonly options: StreamHubOptions;

  constructor(options: StreamHubOptions) {
    this.options = options;
    this.poll = setInterval(() => this.markAll(), options.pollMs);
    this.poll.unref();
  }

  private get db() {
    return this.options.database.db;
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Open streams (for tests and health). */
  count(): number {
    let n = 0;
    for (const set of this.farms.values()) n += set.size;
    return n;
  }

  /** The bus is opened by the first stream: a process that never serves one holds no LISTEN connection. */
  private ensureBus(): Promise<void> {
    this.busReady ??= (async () => {
      const bus = openBus({
        databaseUrl: this.options.databaseUrl,
        onReconnect: () => this.markAll(),
        onError: (err) => this.options.log.warn({ err }, 'stream notification connection lost; reconnecting'),
      });
      this.bus = bus;
      await bus.listen(BUS_CHANNELS.farmOutbox, (farmId) => {
        if (this.farms.has(farmId)) this.mark(farmId);
      });
    })().catch(async (err: unknown) => {
      // The next stream tries again (the database may be back by then).
      const bus = this.bus;
      this.bus = null;
      this.busReady = null;
      await bus?.close().catch(() => {});
      throw err;
    });
    return this.busReady;
  }

  /**
   * Starts a stream: finds where it resumes, writes its opening frames and registers it; its backlog
   * follows. Listening comes first, so nothing committed while the position is looked up is missed.
   */
  async open(stream: OpenStream): Promise<void> {
    if (this.closed) throw new Error('stream hub closed');
    await this.ensureBus();
    await sequenceOutbox(this.db, [stream.farmId]);
    const newest = await newestEvent(this.db, stream.farmId);
    let cursor = newest?.seq ?? 0;
    let opening = retryFrame(RECONNECT_MS);
    if (stream.lastEventId === null) {
      if (newest) opening += positionFrame(newest.id);
    } else {
      const seq = await seqOfEvent(this.db, stream.farmId, stream.lastEventId);
      if (seq === null) opening += resetFrame(stream.lastEventId, newest?.id ?? null);
      else cursor = seq;
    }
    const connection: Connection = {
      ...stream,
      cursor,
      live: false,
      ended: false,
      checking: false,
      keepAlive: setInterval(() => void this.keepAlive(connection), this.options.keepAliveMs),
      reportsFrom: Date.now(),
      reportsSent: new Map(),
      statesSent: new Map(),
    };
    connection.keepAlive.unref();
    // A write after the client left is dropped; never an unhandled 'error'.
    stream.body.on('error', () => {});
    if (this.closed) {
      // Shut down while this stream was opening.
      clearInterval(connection.keepAlive);
      stream.body.end(opening + commentFrame(SHUTDOWN_NOTE));
      return;
    }
    const socket = stream.response.socket;
    if (!socket || socket.destroyed) {
      // The client left while the stream was opening: its 'close' has passed.
      clearInterval(connection.keepAlive);
      stream.body.destroy();
      return;
    }
    stream.body.write(opening);
    let set = this.farms.get(stream.farmId);
    if (!set) {
      set = new Set();
      this.farms.set(stream.farmId, set);
    }
    set.add(connection);
    if (connection.reports && !this.reportWatch.has(stream.farmId)) {
      const farmId = stream.farmId;
      this.reportWatch.set(farmId, {
        newest: connection.reportsFrom,
        unwatch: watchReports(farmId, () => this.markReports(farmId)),
      });
    }
    // The client went away (or the response failed): forget the connection.
    stream.response.once('close', () => this.forget(connection));
    void this.catchUp(connection);
  }

  /** Sends what the connection has not seen yet at its own pace, then lets it join the live fan-out. */
  private async catchUp(connection: Connection): Promise<void> {
    try {
      for (;;) {
        const rows = await rowsAfter(this.db, connection.farmId, connection.cursor, PAGE);
        for (const row of rows) {
          if (connection.ended) return;
          if (!this.send(connection, row)) await drained(connection);
        }
        if (rows.length < PAGE) break;
      }
      connection.live = true;
      // Rows that came while catching up are the live pump's now.
      this.mark(connection.farmId);
    } catch (err) {
      this.fail(connection, err);
    }
  }

  /** Writes one row if the caller may see it; the cursor moves either way. False: the socket is full. */
  private send(connection: Connection, row: StreamRow): boolean {
    if (row.seq <= connection.cursor) return true;
    connection.cursor = row.seq;
    if (!connection.accepts(row.type, row.data)) return true;
    return connection.body.write(eventFrame(row));
  }

  private mark(farmId: string): void {
    if (this.closed) return;
    this.dirty.add(farmId);
    this.schedule();
  }

  private markReports(farmId: string): void {
    if (this.closed) return;
    this.reportsDirty.add(farmId);
    this.schedule();
  }

  private schedule(): void {
    this.pumping ??= this.pump().finally(() => {
      this.pumping = null;
      if (!this.closed && (this.dirty.size > 0 || this.reportsDirty.size > 0)) this.schedule();
    });
  }

  /** The safety poll; for `device.reported` streams also how reports stored by other processes arrive. */
  private markAll(): void {
    for (const farmId of this.farms.keys()) this.mark(farmId);
    for (const farmId of this.reportWatch.keys()) this.markReports(farmId);
  }

  /** One pass over the farms marked since the last: number their new rows, read them once, fan them out. */
  private async pump(): Promise<void> {
    // Let the notifications of one burst gather into one pass.
    await new Promise((resolve) => setImmediate(resolve));
    const farmIds = [...this.dirty].filter((id) => this.farms.has(id));
    const reportFarms = [...this.reportsDirty].filter((id) => this.reportWatch.has(id));
    this.dirty.clear();
    this.reportsDirty.clear();
    if (this.closed) return;
    try {
      if (farmIds.length > 0) {
        await sequenceOutbox(this.db, farmIds);
        for (const farmId of farmIds) await this.fanOut(farmId);
      }
      for (const farmId of reportFarms) await this.fanOutReports(farmId);
    } catch (err) {
      this.options.log.error({ err }, 'live stream read failed; retrying with the next poll');
    }
  }

  private async fanOut(farmId: string): Promise<void> {
    for (;;) {
      const live = [...(this.farms.get(farmId) ?? [])].filter((c) => c.live && !c.ended);
      if (live.length === 0) return;
      const from = Math.min(...live.map((c) => c.cursor));
      const rows = await rowsAfter(this.db, farmId, from, PAGE);
      for (const connection of live) {
        for (const row of rows) {
          if (connection.ended) break;
          this.send(connection, row);
        }
        const buffered = connection.body.writableLength + connection.body.readableLength;
        if (buffered > MAX_BUFFERED_BYTES) {
          this.end(connection, 'this client reads too slowly; reconnect with Last-Event-ID to resume');
        }
      }
      if (rows.length < PAGE) return;
    }
  }

  /**
   * Sends the farm's new device reports to its `device.reported` streams: each device's latest values, and
   * its state when it changed since the frame before. Reports are read by time from a little behind the
   * newest seen (REPORT_LOOKBACK_MS); each stream skips a report it already has.
   */
  private async fanOutReports(farmId: string): Promise<void> {
    const watch = this.reportWatch.get(farmId);
    const streams = [...(this.farms.get(farmId) ?? [])].filter((c) => c.reports && !c.ended);
    if (!watch || streams.length === 0) return;
    const reports = await devicesReportedSince(
      this.db,
      farmId,
      watch.newest - REPORT_LOOKBACK_MS,
      REPORT_PAGE,
    );
    if (reports.length === 0) return;
    watch.newest = Math.max(watch.newest, ...reports.map((r) => r.last_seen_at));
    const isNew = (c: Connection, r: { id: string; last_seen_at: number }) =>
      r.last_seen_at > (c.reportsSent.get(r.id) ?? c.reportsFrom - 1);
    const wanted = reports.filter((r) => streams.some((c) => isNew(c, r))).map((r) => r.id);
    if (wanted.length === 0) return;
    const [devices, latest] = await Promise.all([
      reportedDevices(this.db, wanted),
      latestByDevice(this.db, wanted),
    ]);
    for (const connection of streams) {
      for (const device of devices) {
        if (connection.ended || !isNew(connection, device)) continue;
        const changed = connection.statesSent.get(device.id) !== device.state;
        connection.reportsSent.set(device.id, device.last_seen_at);
        connection.statesSent.set(device.id, device.state);
        const frame = reportFrame(farmId, device, latest.get(device.id) ?? {}, changed ? device.state : null);
        connection.body.write(frame);
      }
      const buffered = connection.body.writableLength + connection.body.readableLength;
      if (buffered > MAX_BUFFERED_BYTES) {
        this.end(connection, 'this client reads too slowly; reconnect with Last-Event-ID to resume');
      }
    }
  }

  private async keepAlive(connection: Connection): Promise<void> {
    if (connection.ended || connection.checking) return;
    connection.body.write(commentFrame('keep-alive'));
    connection.checking = true;
    try {
      if (!(await connection.stillAllowed())) {
        this.end(connection, 'access to this farm ended (key revoked or farm gone)');
      }
    } catch (err) {
      this.options.log.warn({ err }, 'live stream access check failed');
    } finally {
      connection.checking = false;
    }
  }

  private fail(connection: Connection, err: unknown): void {
    this.options.log.error({ err, farm: connection.farmId }, 'live stream failed; ending it');
    this.end(connection, 'the server could not read the events; reconnect with Last-Event-ID to resume');
  }

  /** Ends the stream cleanly (the response completes): EventSource clients then reconnect. */
  private end(connection: Connection, why: string): void {
    if (connection.ended) return;
    connection.body.write(commentFrame(why));
    connection.body.end();
    this.forget(connection);
  }

  private forget(connection: Connection): void {
    connection.ended = true;
    clearInterval(connection.keepAlive);
    const set = this.farms.get(connection.farmId);
    set?.delete(connection);
    if (set?.size === 0) this.farms.delete(connection.farmId);
    const watch = this.reportWatch.get(connection.farmId);
    if (watch && ![...(set ?? [])].some((c) => c.reports)) {
      watch.unwatch();
      this.reportWatch.delete(connection.farmId);
    }
  }

  /**
   * Shutdown: every stream ends cleanly at once (its clients reconnect, to another process behind the
   * proxy), and each socket is closed once its end is sent, so the server does not wait on them.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poll);
    const open = [...this.farms.values()].flatMap((set) => [...set]);
    const flushed = open.map(async (connection) => {
      const { response } = connection;
      // Taken now: a finished response lets go of its socket.
      const socket = response.socket;
      this.end(connection, SHUTDOWN_NOTE);
      if (!response.writableFinished && !response.destroyed) {
        await firstOf([response, 'finish'], [response, 'close'], FLUSH_ON_CLOSE_MS);
      }
      socket?.end();
    });
    await Promise.all(flushed);
    await this.pumping?.catch(() => {});
    await this.busReady?.catch(() => {});
    await this.bus?.close();
  }
}

/** Resolves at the first of these events (or errors), or after `ms`; removes its listeners either way. */
async function firstOf(...waits: Array<[NodeJS.EventEmitter, string] | number>): Promise<void> {
  const abort = new AbortController();
  const settle = (p: Promise<unknown>) =>
    p.then(
      () => {},
      () => {},
    );
  const waiting = waits.map((w) =>
    typeof w === 'number'
      ? settle(setTimeoutPromise(w, undefined, { signal: abort.signal, ref: false }))
      : settle(once(w[0], w[1], { signal: abort.signal })),
  );
  await Promise.race(waiting);
  abort.abort();
}

/** Resolves when the connection's body can take more, or the connection is gone. */
async function drained(connection: Connection): Promise<void> {
  if (connection.ended) return;
  await firstOf([connection.body, 'drain'], [connection.response, 'close']);
}
