/**
 * The MQTT broker (aedes, MQTT 3.1.1 and 5) with Farmstead's meaning on top: devices log in with their
 * device id and key, publish reports and command answers that go through the same service functions as
 * HTTP, and get their commands pushed the moment they are queued (in any process: the notification bus).
 * The broker is only the transport; the database stays the one source of truth.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Aedes, type AuthenticateError, type Client, type PublishPacket } from 'aedes';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { BUS_CHANNELS, type Bus, openBus } from '../../db/notify.ts';
import { AppError, errorBody } from '../../domain/errors.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { devicesWithCommandsDue, pickUpCommands } from '../commands/service.ts';
import { keyHashesOf } from '../devices/repository.ts';
import { authenticateDevice } from '../devices/service.ts';
import type { UsageCounter } from '../usage/counter.ts';
import { Gate } from './gate.ts';
import { forgetConnectPacket, lightenConnection } from './lean-connection.ts';
import { handleCommandResult, handleReport, type Outcome, outcomeJson } from './messages.ts';
import { RecentAnswers } from './recent-answers.ts';
import { createSubscriptions } from './subscriptions.ts';
import { coversCommands, maySubscribe, parseDevicePublish, topics } from './topics.ts';

/** How often connected devices' keys are checked again and commands due again are pushed. */
const RECHECK_MS = 2_000;
/** A device over its rate limit is told so at most this often (the refusals themselves are silent). */
const REFUSAL_NOTICE_MS = 1_000;
/** Room for the MQTT header and topic above the largest payload, before a frame is cut off unread. */
const PACKET_OVERHEAD_BYTES = 64 * 1024;
/**
 * Devices' messages handled at once; the others wait their turn (gate.ts). Enough for SQLite's group commit
 * (64 reports a transaction) and PostgreSQL's two lanes to stay full: two groups a lane.
 */
const MESSAGES_AT_ONCE = 256;
/** MQTT 5 reason code 0x87 (Not authorized), sent with a DISCONNECT when a key stops being valid. */
const NOT_AUTHORIZED = 0x87;

export interface MqttDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl' | 'bodyLimitBytes' | 'mqttRatePerSecond' | 'maxClockSkewS'>;
  usage: UsageCounter;
  log: FastifyBaseLogger;
  /** Injected in tests; Date.now otherwise. */
  clock?: () => number;
}

interface Session {
  deviceId: string;
  accountId: string;
  keyHash: string;
  /** Token bucket of the per-device message rate. */
  tokens: number;
  refilledAt: number;
  lastNoticeAt: number;
  /** Subscribed (or subscribing) to its commands topic, so pushed commands reach it. */
  commands: boolean;
}

/** Where the answer to a device's message goes. */
type Answer = { topic: string; correlation: Buffer | undefined };

export interface MqttBroker {
  /** Serves one MQTT connection (a TCP socket, or a WebSocket as a stream). */
  handle(stream: Duplex, request?: IncomingMessage): void;
  /** Devices with a live connection (for tests and health). */
  connectedDevices(): string[];
  close(): Promise<void>;
}

function badLogin(returnCode: 3 | 4 = 4): AuthenticateError {
  const error = new Error(
    returnCode === 4 ? 'Bad device id or key' : 'Server unavailable',
  ) as AuthenticateError;
  error.returnCode = returnCode;
  return error;
}

function disconnect(client: Client): void {
  if (client.version === 5) client.disconnect({ reasonCode: NOT_AUTHORIZED });
  else client.close();
}

/** Device → service topics: answered by the service, never forwarded to subscribers. */
const DEVICE_TO_SERVICE = /^farmstead\/devices\/[^/]+\/(report|commands\/[^/]+\/result)$/;

/** The broker's Farmstead side: sessions of logged-in devices, their messages and their pushed commands. */
class DeviceBroker {
  private readonly sessions = new WeakMap<Client, Session>();
  private readonly byDevice = new Map<string, Set<Client>>();
  /** Per device, one hand-out at a time, so pushed commands keep their order. */
  private readonly pushing = new Map<string, Promise<void>>();
  private readonly burst: number;
  private readonly now: () => number;
  private bus: Bus | null = null;
  private busReady: Promise<void> | null = null;
  private ticking = false;
  private readonly timer: NodeJS.Timeout;
  private readonly answered = new RecentAnswers();
  private readonly gate = new Gate(MESSAGES_AT_ONCE);
  private readonly aedes: Aedes;
  private readonly deps: MqttDeps;

  constructor(aedes: Aedes, deps: MqttDeps) {
    this.aedes = aedes;
    this.deps = deps;
    this.now = deps.clock ?? Date.now;
    this.burst = deps.config.mqttRatePerSecond * 10;
    aedes.authenticate = (client, username, password, done) =>
      void this.authenticate(client, username, password).then(
        () => done(null, true),
        (err: AuthenticateError) => done(err, null),
      );
    aedes.authorizeSubscribe = (client, subscription, done) => {
      const session = this.sessions.get(client);
      if (!session || !maySubscribe(session.deviceId, subscription.topic)) return done(null, null);
      if (coversCommands(session.deviceId, subscription.topic)) session.commands = true;
      done(null, subscription);
    };
    aedes.authorizeForward = (_client, packet) => (DEVICE_TO_SERVICE.test(packet.topic) ? null : packet);
    aedes.authorizePublish = (client, packet, done) =>
      void this.gate
        .run(() => this.receive(client, packet))
        .then(
          () => done(null),
          (err: Error) => done(err),
        );
    this.watchConnections();
    this.timer = setInterval(() => void this.tick(), RECHECK_MS);
    this.timer.unref();
  }

  private get db() {
    return this.deps.database.db;
  }

  private watchConnections(): void {
    const { aedes, sessions, byDevice, deps } = this;
    aedes.on('clientReady', (client) => {
      forgetConnectPacket(client);
      const session = sessions.get(client);
      if (!session) return;
      const set = byDevice.get(session.deviceId) ?? new Set<Client>();
      set.add(client);
      byDevice.set(session.deviceId, set);
      // A restored (persistent) session already has its subscriptions: hand out what is waiting.
      if (session.commands) void this.push(session.deviceId, true);
    });
    aedes.on('subscribe', (subscriptions, client) => {
      const session = sessions.get(client);
      // A new subscription may follow a lost session: every unanswered command goes out again.
      if (session && subscriptions.some((s) => coversCommands(session.deviceId, s.topic))) {
        void this.push(session.deviceId, true);
      }
    });
    aedes.on('unsubscribe', (filters, client) => {
      const session = sessions.get(client);
      if (session && filters.some((f) => coversCommands(session.deviceId, f))) session.commands = false;
    });
    aedes.on('clientDisconnect', (client) => {
      const session = sessions.get(client);
      const set = session ? byDevice.get(session.deviceId) : undefined;
      set?.delete(client);
      if (session && set?.size === 0) byDevice.delete(session.deviceId);
    });
    aedes.on('clientError', (client, err) =>
      deps.log.debug({ err, client: client?.id }, 'MQTT client error'),
    );
    aedes.on('connectionError', (client, err) =>
      deps.log.debug({ err, client: client?.id }, 'MQTT connection error'),
    );
  }

  /** CONNECT: username = device id, password = device key, checked like an HTTP device key. */
  private async authenticate(client: Client, username?: string, password?: Buffer): Promise<void> {
    const key = password?.toString('utf8') ?? '';
    let device: Awaited<ReturnType<typeof authenticateDevice>>;
    try {
      // Listening before the first hand-out, so no command queued in between is missed.
      await this.ensureBus();
      device = await authenticateDevice(this.db, key);
    } catch (err) {
      this.deps.log.error({ err }, 'MQTT login failed');
      throw badLogin(3);
    }
    if (!device || device.deviceId !== username) throw badLogin();
    // Client ids are namespaced by device: another device choosing the same client id can neither take
    // this session over nor inherit its persisted subscriptions and queued commands.
    (client as { id: string }).id = `${device.deviceId}:${client.id}`;
    this.sessions.set(client, {
      deviceId: device.deviceId,
      accountId: device.accountId,
      keyHash: hashSecret(key),
      tokens: this.burst,
      refilledAt: this.now(),
      lastNoticeAt: 0,
      commands: false,
    });
  }

  /** The bus is opened on the first device login: apps that never see a device hold no LISTEN connection. */
  private ensureBus(): Promise<void> {
    this.busReady ??= (async () => {
      const bus = openBus({
        databaseUrl: this.deps.config.databaseUrl,
        onReconnect: () => void this.tick(),
        onError: (err) => this.deps.log.warn({ err }, 'MQTT notification connection lost; reconnecting'),
      });
      this.bus = bus;
      await bus.listen(BUS_CHANNELS.deviceCommands, (deviceId) => void this.push(deviceId, false));
      await bus.listen(BUS_CHANNELS.deviceKeys, (deviceId) => void this.checkKeys([deviceId]));
    })();
    return this.busReady;
  }

  private publish(topic: string, body: unknown, correlationData?: Buffer): Promise<void> {
    return this.publishJson(topic, JSON.stringify(body), correlationData);
  }

  private publishJson(topic: string, json: string, correlationData?: Buffer): Promise<void> {
    const packet: PublishPacket = {
      cmd: 'publish',
      topic,
      payload: Buffer.from(json),
      qos: 1,
      retain: false,
      dup: false,
      ...(correlationData ? { properties: { correlationData } } : {}),
    };
    return new Promise((resolve) => {
      this.aedes.publish(packet, (err) => {
        if (err) this.deps.log.warn({ err, topic }, 'MQTT publish failed');
        resolve();
      });
    });
  }

  private subscribed(deviceId: string): boolean {
    return [...(this.byDevice.get(deviceId) ?? [])].some((c) => this.sessions.get(c)?.commands);
  }

  /** Hands the device's waiting commands out on its commands topic, if it listens there. */
  push(deviceId: string, everyOpen: boolean): Promise<void> {
    const previous = this.pushing.get(deviceId) ?? Promise.resolve();
    const settled = previous
      .then(async () => {
        if (!this.subscribed(deviceId)) return;
        const commands = await pickUpCommands(this.db, deviceId, this.now(), { everyOpen });
        for (const command of commands) await this.publish(topics.commands(deviceId), command);
      })
      .catch((err: unknown) => this.deps.log.error({ err, deviceId }, 'pushing commands failed'));
    this.pushing.set(deviceId, settled);
    void settled.then(() => {
      if (this.pushing.get(deviceId) === settled) this.pushing.delete(deviceId);
    });
    return settled;
  }

  /** Drops connections whose key was rotated or whose device was deleted. */
  private async checkKeys(ids: string[]): Promise<void> {
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const hashes = await keyHashesOf(this.db, chunk);
      for (const id of chunk) {
        for (const client of this.byDevice.get(id) ?? []) {
          if (this.sessions.get(client)?.keyHash === hashes.get(id)) continue;
          this.deps.log.info({ device: id }, 'MQTT: device key rotated or device deleted; disconnecting');
          disconnect(client);
        }
      }
    }
  }

  /** Every RECHECK_MS: keys of connected devices, and commands due again (or whose notification was lost). */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const ids = [...this.byDevice.keys()];
      if (ids.length === 0) return;
      await this.checkKeys(ids);
      const listening = ids.filter((id) => this.subscribed(id));
      for (let i = 0; i < listening.length; i += 500) {
        const due = await devicesWithCommandsDue(this.db, listening.slice(i, i + 500), this.now());
        for (const id of due) await this.push(id, false);
      }
    } catch (err) {
      this.deps.log.error({ err }, 'MQTT check of connected devices failed');
    } finally {
      this.ticking = false;
    }
  }

  /** Takes one message from the device's bucket; false when it is over its rate. */
  private takeToken(session: Session, at: number): boolean {
    const rate = this.deps.config.mqttRatePerSecond;
    session.tokens = Math.min(this.burst, session.tokens + ((at - session.refilledAt) / 1000) * rate);
    session.refilledAt = at;
    if (session.tokens < 1) return false;
    session.tokens -= 1;
    return true;
  }

  /**
   * A PUBLISH from a device: refused unless it is on one of its own device → service topics; then checked
   * against its rate and the size limit, handled, and answered. Resolving acknowledges a QoS 1 message;
   * rejecting refuses it (MQTT 5: a reason code; MQTT 3.1.1: the connection closes).
   */
  private async receive(client: Client | null, packet: PublishPacket): Promise<void> {
    const session = client ? this.sessions.get(client) : undefined;
    const message = session ? parseDevicePublish(session.deviceId, packet.topic) : null;
    if (!client || !session || !message) {
      throw new Error('Not authorized: a device publishes only to its own report and command result topics');
    }
    const at = this.now();
    const answer: Answer = {
      topic:
        message.kind === 'report'
          ? topics.reportResult(session.deviceId)
          : topics.commandOutcome(session.deviceId, message.commandId),
      correlation: packet.properties?.correlationData,
    };
    const { mqttRatePerSecond, bodyLimitBytes } = this.deps.config;
    if (!this.takeToken(session, at)) {
      // Told at most once a second, so the answers to a flood are not a flood themselves.
      if (at - session.lastNoticeAt < REFUSAL_NOTICE_MS) return;
      session.lastNoticeAt = at;
      const error = new AppError(
        'rate_limited',
        `More than ${mqttRatePerSecond} messages a second from this device; this one was not processed.`,
      );
      return this.publish(answer.topic, errorBody(error), answer.correlation);
    }
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    if (payload.length > bodyLimitBytes) {
      const error = new AppError('payload_too_large', `Messages may be at most ${bodyLimitBytes} bytes.`);
      return this.publish(answer.topic, errorBody(error), answer.correlation);
    }
    const messageId = packet.qos > 0 ? packet.messageId : undefined;
    if (packet.dup && messageId !== undefined) {
      const earlier = this.answered.get(client.id, messageId);
      if (earlier !== undefined) return this.publishJson(answer.topic, earlier, answer.correlation);
    }
    await this.handle(session, message, payload, answer, at, client.id, messageId);
  }

  private async handle(
    session: Session,
    message: NonNullable<ReturnType<typeof parseDevicePublish>>,
    payload: Buffer,
    answer: Answer,
    at: number,
    clientId: string,
    messageId: number | undefined,
  ): Promise<void> {
    let outcome: Outcome<unknown>;
    try {
      outcome =
        message.kind === 'report'
          ? await handleReport(this.db, session.deviceId, payload, at, {
              maxClockSkewMs: this.deps.config.maxClockSkewS * 1000,
            })
          : await handleCommandResult(this.db, session.deviceId, message.commandId, payload, at);
    } catch (err) {
      this.deps.log.error({ err, device: session.deviceId, kind: message.kind }, 'MQTT message failed');
      const error = new AppError('internal_error', 'Something went wrong on our side; it has been logged.');
      await this.publish(answer.topic, errorBody(error), answer.correlation);
      // Not acknowledged, so a QoS 1 message is sent again.
      throw err;
    }
    this.deps.usage.count(session.accountId, 'ingest', at);
    const json = JSON.stringify(outcomeJson(outcome));
    if (messageId !== undefined) this.answered.set(clientId, messageId, json);
    await this.publishJson(answer.topic, json, answer.correlation);
  }

  connectedDevices(): string[] {
    return [...this.byDevice.keys()];
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await new Promise<void>((resolve) => this.aedes.close(() => resolve()));
    await this.busReady?.catch(() => {});
    await this.bus?.close();
  }
}

export async function createMqttBroker(deps: MqttDeps): Promise<MqttBroker> {
  const aedes = await Aedes.createBroker({
    maximumPacketSize: deps.config.bodyLimitBytes + PACKET_OVERHEAD_BYTES,
    connectTimeout: 10_000,
    drainTimeout: 30_000,
    sessionExpiryIntervalLimit: 86_400,
    pendingSessionsLimit: 10_000,
    // No cap on messages in flight inside the broker. Past the cap (aedes's default, 100) mqemitter queues
    // them and drains the queue recursively, one stack frame group per queued message: 10,000 devices
    // reporting at once (their answers and deliveries) overflowed the stack and killed the process
    // (bench/fleet.ts, BENCHMARKS.md). Each message in flight is one a device sent and waits on.
    concurrency: 0,
    mq: createSubscriptions(0),
  });
  const broker = new DeviceBroker(aedes, deps);
  return {
    handle: (stream, request) => {
      // A broken connection must never become an unhandled 'error' event.
      stream.on('error', (err) => deps.log.debug({ err }, 'MQTT stream error'));
      lightenConnection(aedes.handle(stream, request));
    },
    connectedDevices: () => broker.connectedDevices(),
    close: () => broker.close(),
  };
}
