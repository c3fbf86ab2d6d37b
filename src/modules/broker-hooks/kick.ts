/**
 * Disconnecting the live sessions of a device whose key was rotated or that was deleted, through the
 * broker's admin API (FARMSTEAD_MQTT_BROKER_ADMIN): the hooks answer questions, they cannot end a session
 * already let in. Each broker's request is an adapter beside its hooks (emqx.ts, vernemq.ts, rabbitmq.ts).
 *
 * Who is kicked: every process remembers the logins its own hooks let in (the device, its farm, the client
 * id and mountpoint the broker sent; bounded, least recently let in forgotten first), and when the bus
 * announces a device's key changed (BUS_CHANNELS.deviceKeys: rotated or deleted, from any process) or a
 * farm's devices all went (farmDevices), it kicks the sessions it let in for them. EMQX and VerneMQ kick by
 * client id, which only the process that answered the CONNECT knew; the bus already reaches every process,
 * so nothing is written per CONNECT (a table would be a write on every connection, and a reconnecting fleet
 * is thousands at once). What this does not know: a session let in before this process last started (its
 * memory went with the old process) stays until it reconnects, and is refused then, as without the admin API.
 * RabbitMQ kicks by username, the device id, which needs no memory: there every process asks on every key
 * change it hears of (`byDevice`; the processes after the first find nothing, 404), and the memory serves
 * only a farm deleted (its device ids are gone from the database by then).
 *
 * Calls go through the one outbound client (the address is the operator's, so private addresses are
 * allowed), with a timeout, a few at a time; a failed call is logged (never the login) and tried again a few
 * times; nothing here can fail the rotation or deletion, which committed before the bus spoke.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { MqttBrokerAdminConfig } from '../../config.ts';
import { BUS_CHANNELS, type Bus, openBus } from '../../db/notify.ts';
import { OutboundError, sendOutbound } from '../../lib/outbound.ts';
import { pause } from '../../lib/pause.ts';

/** A login the hooks let in: what a kick needs to name its session. */
export interface LetIn {
  deviceId: string;
  farmId: string;
  /** The MQTT client id the broker sent with the CONNECT, when it sent one. */
  clientId: string | null;
  /** VerneMQ's mountpoint ('' elsewhere). */
  mountpoint: string;
}

/** What the broker's answer to a kick means. */
export type KickOutcome = 'done' | 'gone' | 'retry' | 'failed';

/** One broker's admin API request that disconnects a session, and how to read its answer. */
export interface KickAdapter {
  /**
   * The kick names the device itself (its username), not a session: a process asks on every change it
   * hears of, whether or not its hooks let the device in (so nothing a restart forgot is missed).
   */
  readonly byDevice: boolean;
  /**
   * What names the session, or null when this login cannot be kicked (EMQX without a client id in the
   * configured body, a VerneMQ client id its admin query language cannot carry). Logins with the same
   * name are kicked once.
   */
  target(login: LetIn): string | null;
  /** The request, relative to the admin URL (a path and query starting with '/'). */
  request(login: LetIn): { method: 'GET' | 'DELETE'; path: string };
  /** The answer: 'done' (disconnected), 'gone' (no such session: nothing to do), 'retry' or 'failed'. */
  outcome(status: number, body: Buffer): KickOutcome;
}

/** The common reading of an answer: 2xx done, 404 gone, 408/429/5xx again, other 4xx failed (login, rights). */
export function statusOutcome(status: number): KickOutcome {
  if (status >= 200 && status < 300) return 'done';
  if (status === 404) return 'gone';
  if (status === 408 || status === 429 || status >= 500) return 'retry';
  return 'failed';
}

/** How many devices each process remembers logins of, and how many sessions per device. */
const MAX_DEVICES = 100_000;
const MAX_PER_DEVICE = 8;
/** Kicks in flight at once (a farm deleted kicks all its devices). */
const CONCURRENCY = 8;
/** Between attempts of a kick that did not get through; then it is given up (and logged). */
export const KICK_RETRY_MS = [1_000, 5_000, 30_000];
const TIMEOUT_MS = 5_000;

interface Remembered {
  farmId: string;
  logins: Map<string, LetIn>;
}

export interface BrokerKicksDeps {
  admin: MqttBrokerAdminConfig;
  adapter: KickAdapter;
  databaseUrl: string | null;
  log: FastifyBaseLogger;
  /** Between attempts; tests shorten it. */
  retryMs?: readonly number[];
}

export class BrokerKicks {
  private readonly deps: BrokerKicksDeps;
  private readonly retryMs: readonly number[];
  /** Device id → the logins let in through this process (Map order: least recently let in first). */
  private readonly devices = new Map<string, Remembered>();
  private readonly queue: LetIn[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly abort = new AbortController();
  private bus: Bus | null = null;
  private warnedUnnamed = false;

  constructor(deps: BrokerKicksDeps) {
    this.deps = deps;
    this.retryMs = deps.retryMs ?? KICK_RETRY_MS;
  }

  async start(): Promise<void> {
    const bus = openBus({
      databaseUrl: this.deps.databaseUrl,
      onError: (err) =>
        this.deps.log.warn({ err }, 'MQTT broker kicks: notification connection lost; reconnecting'),
    });
    this.bus = bus;
    await bus.listen(BUS_CHANNELS.deviceKeys, (deviceId) => this.keyChanged(deviceId));
    await bus.listen(BUS_CHANNELS.farmDevices, (farmId) => this.farmEmptied(farmId));
  }

  /** A hook let `login` in: remembered, to be kicked if its key changes. */
  remember(login: LetIn): void {
    const name = this.deps.adapter.target(login);
    if (name === null) {
      if (!this.warnedUnnamed) {
        this.warnedUnnamed = true;
        this.deps.log.warn(
          { broker: this.deps.admin.kind, device: login.deviceId },
          'MQTT broker: a device was let in whose session the admin API cannot name (no client id sent, or one it cannot carry): such sessions are not disconnected when the key changes (said once)',
        );
      }
      return;
    }
    let known = this.devices.get(login.deviceId);
    if (known) this.devices.delete(login.deviceId);
    else {
      known = { farmId: login.farmId, logins: new Map() };
      if (this.devices.size >= MAX_DEVICES) {
        const oldest = this.devices.keys().next().value;
        if (oldest !== undefined) this.devices.delete(oldest);
      }
    }
    this.devices.set(login.deviceId, known);
    known.logins.delete(name);
    known.logins.set(name, login);
    if (known.logins.size > MAX_PER_DEVICE) {
      const oldest = known.logins.keys().next().value;
      if (oldest !== undefined) known.logins.delete(oldest);
    }
  }

  /** The device's key was rotated or it was deleted (in any process): its sessions let in here end. */
  keyChanged(deviceId: string): void {
    const known = this.devices.get(deviceId);
    this.devices.delete(deviceId);
    const logins = known ? [...known.logins.values()] : [];
    if (logins.length === 0 && this.deps.adapter.byDevice) {
      logins.push({ deviceId, farmId: '', clientId: null, mountpoint: '' });
    }
    this.enqueue(logins);
  }

  /** Every device of the farm went (farm deleted, sample farm reset). */
  farmEmptied(farmId: string): void {
    const logins: LetIn[] = [];
    for (const [deviceId, known] of this.devices) {
      if (known.farmId !== farmId) continue;
      this.devices.delete(deviceId);
      logins.push(...known.logins.values());
    }
    this.enqueue(logins);
  }

  private enqueue(logins: LetIn[]): void {
    if (this.abort.signal.aborted) return;
    this.queue.push(...logins);
    while (this.running.size < CONCURRENCY && this.queue.length > 0) {
      const login = this.queue.shift() as LetIn;
      const run: Promise<void> = this.kick(login).finally(() => {
        this.running.delete(run);
        this.enqueue([]);
      });
      this.running.add(run);
    }
  }

  /** One kick, tried again on a failure that may pass; never throws. */
  private async kick(login: LetIn): Promise<void> {
    const { admin, adapter, log } = this.deps;
    const { method, path } = adapter.request(login);
    const about = { broker: admin.kind, device: login.deviceId, client: login.clientId };
    for (let attempt = 0; ; attempt++) {
      let outcome: KickOutcome;
      let why: string;
      try {
        const answer = await sendOutbound({
          url: `${admin.url}${path}`,
          method,
          headers: { authorization: admin.authorization, accept: 'application/json' },
          allowPrivate: true,
          timeoutMs: TIMEOUT_MS,
          maxResponseBytes: 64 * 1024,
          signal: this.abort.signal,
        });
        outcome = adapter.outcome(answer.status, answer.body);
        why = `HTTP ${answer.status}`;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        outcome = 'retry';
        why = err instanceof OutboundError ? err.message : String(err);
      }
      if (outcome === 'done' || outcome === 'gone') {
        log.info(
          { ...about, outcome },
          outcome === 'done'
            ? 'MQTT broker: session disconnected (its key was rotated or the device deleted)'
            : 'MQTT broker: no session to disconnect (already gone)',
        );
        return;
      }
      const wait = this.retryMs[attempt];
      if (outcome === 'failed' || wait === undefined) {
        log.error(
          { ...about, answer: why, attempts: attempt + 1 },
          outcome === 'failed'
            ? 'MQTT broker: the admin API refused to disconnect the session (check FARMSTEAD_MQTT_BROKER_ADMIN’s login and its rights); it stays until it reconnects'
            : 'MQTT broker: could not disconnect the session; it stays until it reconnects',
        );
        return;
      }
      log.warn(
        { ...about, answer: why, attempt: attempt + 1 },
        'MQTT broker: disconnecting a session failed; trying again',
      );
      await pause(wait, this.abort.signal);
      if (this.abort.signal.aborted) return;
    }
  }

  /** Kicks still queued or in flight end (a closing process leaves them to the next CONNECT's refusal). */
  async close(): Promise<void> {
    this.abort.abort();
    this.queue.length = 0;
    await Promise.all([...this.running]);
    await this.bus?.close();
  }
}
