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
import { AppError, errorBody } from '../../http/errors.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { devicesWithCommandsDue, pickUpCommands } from '../commands/service.ts';
import { authenticateDevice } from '../devices/service.ts';
import type { UsageCounter } from '../usage/counter.ts';
import { handleCommandResult, handleReport, type Outcome, outcomeJson } from './messages.ts';
import { coversCommands, maySubscribe, parseDevicePublish, topics } from './topics.ts';

/** How often connected devices' keys are checked again and commands due again are pushed. */
const RECHECK_MS = 2_000;
/** A device over its rate limit is told so at most this often (the refusals themselves are silent). */
const REFUSAL_NOTICE_MS = 1_000;
/** Room for the MQTT header and topic above the largest payload, before a frame is cut off unread. */
const PACKET_OVERHEAD_BYTES = 64 * 1024;
/** MQTT 5 reason code 0x87 (Not authorized), sent with a DISCONNECT when a key stops being valid. */
const NOT_AUTHORIZED = 0x87;

export interface MqttDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl' | 'bodyLimitBytes' | 'mqttRatePerSecond'>;
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

export interface MqttBroker {
  /** Serves one MQTT connection (a TCP socket, or a WebSocket as a stream). */
  handle(stream: Duplex, request?: IncomingMessage): void;
  /** Devices with a live connection (for tests and health). */
  connectedDevices(): string[];
  close(): Promise<void>;
}

function badLogin(): AuthenticateError {
  const error = new Error('Bad device id or key') as AuthenticateError;
  error.returnCode = 4;
  return error;
}

export async function createMqttBroker(deps: MqttDeps): Promise<MqttBroker> {
  const { database, config, log, usage } = deps;
  const db = database.db;
  const now = deps.clock ?? Date.now;
  const sessions = new WeakMap<Client, Session>();
  const byDevice = new Map<string, Set<Client>>();
  const burst = config.mqttRatePerSecond * 10;

  const aedes = await Aedes.createBroker({
    maximumPacketSize: config.bodyLimitBytes + PACKET_OVERHEAD_BYTES,
    connectTimeout: 10_000,
    drainTimeout: 30_000,
    sessionExpiryIntervalLimit: 86_400,
    pendingSessionsLimit: 10_000,
  });

  // The bus is opened on the first device login: apps that never see a device hold no LISTEN connection.
  let bus: Bus | null = null;
  let busReady: Promise<void> | null = null;
  const ensureBus = (): Promise<void> => {
    busReady ??= (async () => {
      bus = openBus({
        databaseUrl: config.databaseUrl,
        onReconnect: () => void recheck(),
        onError: (err) => log.warn({ err }, 'MQTT notification connection lost; reconnecting'),
      });
      await bus.listen(BUS_CHANNELS.deviceCommands, (deviceId) => void push(deviceId, false));
      await bus.listen(BUS_CHANNELS.deviceKeys, (deviceId) => void recheck([deviceId]));
    })();
    return busReady;
  };

  const publish = (topic: string, body: unknown, correlationData?: Buffer): Promise<void> =>
    new Promise((resolve) => {
      const packet: PublishPacket = {
        cmd: 'publish',
        topic,
        payload: Buffer.from(JSON.stringify(body)),
        qos: 1,
        retain: false,
        dup: false,
        ...(correlationData ? { properties: { correlationData } } : {}),
      };
      aedes.publish(packet, (err) => {
        if (err) log.warn({ err, topic }, 'MQTT publish failed');
        resolve();
      });
    });

  // Per device, one hand-out at a time, so pushed commands keep their order.
  const pushing = new Map<string, Promise<void>>();
  const push = (deviceId: string, everyOpen: boolean): Promise<void> => {
    const previous = pushing.get(deviceId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const clients = byDevice.get(deviceId);
      if (!clients || ![...clients].some((c) => sessions.get(c)?.commands)) return;
      const commands = await pickUpCommands(db, deviceId, now(), { everyOpen });
      for (const command of commands) await publish(topics.commands(deviceId), command);
    });
    const settled = next.catch((err: unknown) => log.error({ err, deviceId }, 'pushing commands failed'));
    pushing.set(deviceId, settled);
    void settled.then(() => {
      if (pushing.get(deviceId) === settled) pushing.delete(deviceId);
    });
    return settled;
  };

  const disconnect = (client: Client): void => {
    if (client.version === 5) client.disconnect({ reasonCode: NOT_AUTHORIZED });
    else client.close();
  };

  /** Drops connections whose key was rotated or whose device was deleted; pushes commands due again. */
  let checking = false;
  const recheck = async (only?: string[]): Promise<void> => {
    if (checking && !only) return;
    checking = !only || checking;
    try {
      const ids = only ?? [...byDevice.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const chunk = ids.slice(i, i + 500);
        if (chunk.length === 0) continue;
        const rows = await db
          .selectFrom('devices')
          .select(['id', 'key_hash'])
          .where('id', 'in', chunk)
          .execute();
        const hashes = new Map(rows.map((r) => [r.id, r.key_hash]));
        for (const id of chunk) {
          for (const client of byDevice.get(id) ?? []) {
            if (sessions.get(client)?.keyHash !== hashes.get(id)) {
              log.info({ device: id }, 'MQTT: device key rotated or device deleted; disconnecting');
              disconnect(client);
            }
          }
        }
        if (!only) {
          const subscribed = chunk.filter((id) =>
            [...(byDevice.get(id) ?? [])].some((c) => sessions.get(c)?.commands),
          );
          for (const id of await devicesWithCommandsDue(db, subscribed, now())) await push(id, false);
        }
      }
    } catch (err) {
      log.error({ err }, 'MQTT re-check of connected devices failed');
    } finally {
      if (!only) checking = false;
    }
  };
  const timer = setInterval(() => void recheck(), RECHECK_MS);
  timer.unref();

  aedes.authenticate = (client, username, password, done) => {
    const key = password?.toString('utf8') ?? '';
    ensureBus()
      .then(() => authenticateDevice(db, key))
      .then(
        (device) => {
          if (!device || device.deviceId !== username) return done(badLogin(), null);
          const at = now();
          sessions.set(client, {
            deviceId: device.deviceId,
            accountId: device.accountId,
            keyHash: hashSecret(key),
            tokens: burst,
            refilledAt: at,
            lastNoticeAt: 0,
            commands: false,
          });
          done(null, true);
        },
        (err: unknown) => {
          log.error({ err }, 'MQTT login failed');
          const error = new Error('Server unavailable') as AuthenticateError;
          error.returnCode = 3;
          done(error, null);
        },
      );
  };

  aedes.authorizeSubscribe = (client, subscription, done) => {
    const session = sessions.get(client);
    if (!session || !maySubscribe(session.deviceId, subscription.topic)) return done(null, null);
    if (coversCommands(session.deviceId, subscription.topic)) session.commands = true;
    done(null, subscription);
  };

  // Device → service messages are answered here, never forwarded to other subscribers.
  aedes.authorizeForward = (_client, packet) =>
    /^farmstead\/devices\/[^/]+\/(report|commands\/[^/]+\/result)$/.test(packet.topic) ? null : packet;

  /** Takes one message from the device's bucket; false when it is over its rate. */
  const takeToken = (session: Session, at: number): boolean => {
    session.tokens = Math.min(
      burst,
      session.tokens + ((at - session.refilledAt) / 1000) * config.mqttRatePerSecond,
    );
    session.refilledAt = at;
    if (session.tokens < 1) return false;
    session.tokens -= 1;
    return true;
  };

  const refuse = async (session: Session, topic: string, error: AppError, at: number): Promise<void> => {
    if (at - session.lastNoticeAt < REFUSAL_NOTICE_MS) return;
    session.lastNoticeAt = at;
    await publish(topic, errorBody(error));
  };

  aedes.authorizePublish = (client, packet, done) => {
    const session = client ? sessions.get(client) : undefined;
    const message = session ? parseDevicePublish(session.deviceId, packet.topic) : null;
    if (!session || !message) {
      return done(
        new Error('Not authorized: a device publishes only to its own report and command result topics'),
      );
    }
    const at = now();
    const answerTopic =
      message.kind === 'report'
        ? topics.reportResult(session.deviceId)
        : topics.commandOutcome(session.deviceId, message.commandId);
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    if (!takeToken(session, at)) {
      const error = new AppError(
        'rate_limited',
        `More than ${config.mqttRatePerSecond} messages a second from this device; this one was not processed.`,
      );
      return void refuse(session, answerTopic, error, at).then(() => done(null));
    }
    if (payload.length > config.bodyLimitBytes) {
      const error = new AppError(
        'payload_too_large',
        `Messages may be at most ${config.bodyLimitBytes} bytes.`,
      );
      return void publish(answerTopic, errorBody(error)).then(() => done(null));
    }
    const work: Promise<Outcome<unknown>> =
      message.kind === 'report'
        ? handleReport(db, session.deviceId, payload, at)
        : handleCommandResult(db, session.deviceId, message.commandId, payload, at);
    const correlation = packet.properties?.correlationData;
    work.then(
      async (outcome) => {
        usage.count(session.accountId, 'ingest', at);
        await publish(answerTopic, outcomeJson(outcome), correlation);
        done(null);
      },
      async (err: unknown) => {
        log.error({ err, device: session.deviceId, topic: packet.topic }, 'MQTT message failed');
        const error = new AppError('internal_error', 'Something went wrong on our side; it has been logged.');
        await publish(answerTopic, errorBody(error), correlation);
        // Not acknowledged: a QoS 1 message is sent again (MQTT 3.1.1 reconnects, MQTT 5 gets a reason code).
        done(err as Error);
      },
    );
  };

  aedes.on('clientReady', (client) => {
    const session = sessions.get(client);
    if (!session) return;
    const set = byDevice.get(session.deviceId) ?? new Set<Client>();
    set.add(client);
    byDevice.set(session.deviceId, set);
    // A restored (persistent) session already has its subscriptions: hand out what is waiting.
    if (session.commands) void push(session.deviceId, true);
  });
  aedes.on('subscribe', (subscriptions, client) => {
    const session = sessions.get(client);
    if (session && subscriptions.some((s) => coversCommands(session.deviceId, s.topic))) {
      // A new subscription may follow a lost session: every unanswered command goes out again.
      void push(session.deviceId, true);
    }
  });
  aedes.on('unsubscribe', (filters, client) => {
    const session = sessions.get(client);
    if (session && filters.some((f) => coversCommands(session.deviceId, f))) session.commands = false;
  });
  aedes.on('clientDisconnect', (client) => {
    const session = sessions.get(client);
    if (!session) return;
    const set = byDevice.get(session.deviceId);
    set?.delete(client);
    if (set?.size === 0) byDevice.delete(session.deviceId);
  });
  aedes.on('clientError', (client, err) => log.debug({ err, client: client?.id }, 'MQTT client error'));
  aedes.on('connectionError', (client, err) =>
    log.debug({ err, client: client?.id }, 'MQTT connection error'),
  );

  return {
    handle: (stream, request) => {
      // A broken connection must never become an unhandled 'error' event.
      stream.on('error', (err) => log.debug({ err }, 'MQTT stream error'));
      aedes.handle(stream, request);
    },
    connectedDevices: () => [...byDevice.keys()],
    close: async () => {
      clearInterval(timer);
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await busReady?.catch(() => {});
      await (bus as Bus | null)?.close();
    },
  };
}
