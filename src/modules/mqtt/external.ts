/**
 * Devices on an external MQTT broker (FARMSTEAD_MQTT_BROKER): this process is one of the broker's clients.
 * Its consumer sessions (persistent, stable client ids) share the subscription `$share/farmstead/…` to the
 * devices' report and answer topics, so each message reaches one of the N processes; each message goes
 * through the same service functions as the embedded broker's (messages.ts), and its PUBACK leaves only
 * once it is stored: a process killed before that gets it again from the broker when its session comes
 * back (a report handed over again is stored once: its idempotence key, ingest's `delivery`). A service
 * session publishes the answers, and the commands of the devices this process is told about over the bus
 * (whichever process picks them up first hands them out), and speaks to the dynamic security plugin.
 * Devices see the same topics, payloads, login and QoS as on the embedded broker.
 */
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import mqtt, { type IClientOptions, type IConnackPacket, type IPublishPacket, type MqttClient } from 'mqtt';
import type { Config, MqttBrokerConfig } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { BUS_CHANNELS, type Bus, openBus } from '../../db/notify.ts';
import { AppError, errorBody } from '../../domain/errors.ts';
import { pause } from '../../lib/pause.ts';
import { devicesWithCommandsDue, pickUpCommands } from '../commands/service.ts';
import { accountsOf } from '../devices/repository.ts';
import { type DeviceKeyHooks, NO_DEVICE_KEY_HOOKS } from '../devices/service.ts';
import { ReportAlreadyStored } from '../ingest/service.ts';
import type { UsageCounter } from '../usage/counter.ts';
import { Dynsec } from './dynsec.ts';
import { handleCommandResult, handleReport, type Outcome, outcomeJson } from './messages.ts';
import { topics } from './topics.ts';

/** The shared subscription's group: every Farmstead process on the broker is a member. */
export const SHARE_GROUP = 'farmstead';
export const SHARED_FILTERS = [
  `$share/${SHARE_GROUP}/${topics.report('+')}`,
  `$share/${SHARE_GROUP}/${topics.commandResult('+', '+')}`,
];
/** How long the broker keeps a consumer session (and its messages) while the process is away: a day. */
const SESSION_EXPIRY_S = 86_400;
/** Unacknowledged messages the broker may have in flight on one consumer session. */
const RECEIVE_MAXIMUM = 100;
/** How often due commands of recently seen devices are handed out again, as the embedded broker does. */
const RECHECK_MS = 2_000;
/** A device that reported through this process within this long counts as connected for redelivery. */
const SEEN_MS = 600_000;
/** Between attempts of a message whose handling failed on our side (it is not acknowledged meanwhile). */
const RETRY_MS = [100, 500, 2_000, 5_000];
/** How often the dynamic security repair pass runs. */
const REPAIR_MS = 600_000;
/** FARMSTEAD_MQTT_BROKER_CONSUMERS's largest value (config/mqtt-broker.ts): the sessions a count left. */
const MAX_CONSUMERS = 64;
/** A retired session is ended once it has handed nothing over for this long. */
const RETIRE_QUIET_MS = 500;

/** The client ids of a process's consumer sessions: the client id alone for one, else `-0` to `-(n-1)`. */
export function consumerIds(clientId: string, count: number): string[] {
  return count === 1 ? [clientId] : Array.from({ length: count }, (_, i) => `${clientId}-${i}`);
}

const DEVICE_TOPIC = /^farmstead\/devices\/([^/]+)\/(?:(report)|commands\/([^/]+)\/result)$/;

export interface ExternalBrokerDeps {
  database: Database;
  config: Pick<Config, 'databaseUrl' | 'bodyLimitBytes' | 'maxClockSkewS' | 'mqttBrokerAuth'> & {
    mqttBroker: MqttBrokerConfig;
  };
  usage: UsageCounter;
  log: FastifyBaseLogger;
  clock?: () => number;
}

export type BrokerState = 'up' | 'down';

export class ExternalBroker {
  private readonly deps: ExternalBrokerDeps;
  private readonly now: () => number;
  private readonly consumers: MqttClient[] = [];
  private readonly service: MqttClient;
  private readonly dynsec: Dynsec | null;
  private readonly accounts = new Map<string, string>();
  /** Devices that reported through this process lately, with when (candidates for redelivered commands). */
  private readonly seen = new Map<string, number>();
  private readonly pushing = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];
  private bus: Bus | null = null;
  private ticking = false;
  private closed: Promise<void> | null = null;
  private subscribedOnce: Promise<void>[] = [];
  private readonly base: IClientOptions;
  /** The consumer sessions whose SUBSCRIBE the broker granted since they last connected. */
  private readonly subscribed = new Set<MqttClient>();

  constructor(deps: ExternalBrokerDeps) {
    this.deps = deps;
    this.now = deps.clock ?? Date.now;
    const broker = deps.config.mqttBroker;
    const base: IClientOptions = {
      protocolVersion: 5,
      username: broker.username ?? undefined,
      password: broker.password ?? undefined,
      reconnectPeriod: 1_000,
      connectTimeout: 10_000,
      keepalive: 30,
    };
    this.base = base;
    for (const [i, clientId] of consumerIds(broker.clientId, broker.consumers).entries()) {
      const client = mqtt.connect(broker.url, {
        ...base,
        clientId,
        clean: false,
        // Ours subscribes on every connection (subscribeOnConnect); mqtt.js's own would skip a kept session,
        // and it would make ours a no-op (it sends no SUBSCRIBE for a filter it holds as subscribed).
        resubscribe: false,
        properties: { sessionExpiryInterval: SESSION_EXPIRY_S, receiveMaximum: RECEIVE_MAXIMUM },
        // The PUBACK waits for the handler: the report is stored before the broker forgets it.
        customHandleAcks: (_topic, _payload, packet, done) =>
          void this.consume(packet).then(
            () => done(0),
            // Only while closing: the message stays with the broker's session for the next start.
            () => {},
          ),
      });
      this.watch(client, `consumer ${i}`);
      this.subscribedOnce.push(this.subscribeOnConnect(client));
      this.consumers.push(client);
    }
    this.service = mqtt.connect(broker.url, { ...base, clientId: `${broker.clientId}-svc`, clean: true });
    this.watch(this.service, 'service');
    this.dynsec = deps.config.mqttBrokerAuth === 'dynsec' ? new Dynsec(this.service, deps.log) : null;
  }

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Logs a session's troubles once per outage, not once per reconnect attempt (every second, five
   * sessions or more): the first error or going offline, then that it is back.
   */
  private watch(client: MqttClient, name: string): void {
    const where = { broker: this.deps.config.mqttBroker.url, session: name };
    let down = false;
    const lost = (fields: Record<string, unknown>) => {
      if (down) return;
      down = true;
      this.deps.log.warn({ ...where, ...fields }, 'MQTT broker unreachable; retrying every second');
    };
    client.on('error', (err) =>
      lost({ err: { message: err.message, code: (err as { code?: unknown }).code } }),
    );
    client.on('offline', () => lost({}));
    client.on('close', () => this.subscribed.delete(client));
    client.on('connect', () => {
      if (down) this.deps.log.info(where, 'MQTT broker reachable again');
      down = false;
    });
  }

  /**
   * Subscribes on every connection, a kept session too: Mosquitto 2.0 restores a persistent session from its
   * file after a restart without its `$share` subscriptions, and SUBSCRIBE again costs nothing. Resolves
   * after the first grant.
   */
  private subscribeOnConnect(client: MqttClient): Promise<void> {
    return new Promise((resolve) => {
      client.on('connect', () => {
        client.subscribe(SHARED_FILTERS, { qos: 1 }, (err, granted) => {
          const refused = granted?.find((g) => g.qos > 2);
          if (err || refused) {
            this.deps.log.error({ err, refused }, 'MQTT broker: subscribing to the devices failed');
            return;
          }
          this.subscribed.add(client);
          resolve();
        });
      });
    });
  }

  /** Starts: the bus, the redelivery check, the dynamic security repair pass. Waits up to `waitMs` for the broker. */
  async start(waitMs: number): Promise<void> {
    const bus = openBus({
      databaseUrl: this.deps.config.databaseUrl,
      onReconnect: () => void this.tick(),
      onError: (err) => this.deps.log.warn({ err }, 'MQTT notification connection lost; reconnecting'),
    });
    this.bus = bus;
    await bus.listen(BUS_CHANNELS.deviceCommands, (deviceId) => void this.push(deviceId));
    const timer = setInterval(() => void this.tick(), RECHECK_MS);
    timer.unref();
    this.timers.push(timer);
    const up = Promise.all([...this.subscribedOnce, this.connected(this.service)]);
    const waiting = new AbortController();
    const waited = await Promise.race([up.then(() => true), pause(waitMs, waiting.signal).then(() => false)]);
    waiting.abort();
    if (!waited) {
      this.deps.log.error(
        { broker: this.deps.config.mqttBroker.url },
        'MQTT broker not reachable at start; devices are served once it is',
      );
    }
    void up.then(() => this.retireOrphans());
    if (this.dynsec) {
      const dynsec = this.dynsec;
      await bus.listen(BUS_CHANNELS.farmDevices, () => void this.repair(dynsec));
      // At start and whenever the broker is back: a device deleted while it was unreachable goes now.
      void up.then(() => this.repair(dynsec));
      this.service.on('connect', () => void this.repair(dynsec));
      const repairs = setInterval(() => void this.repair(dynsec), REPAIR_MS);
      repairs.unref();
      this.timers.push(repairs);
    }
  }

  /**
   * Sessions this process's client id left behind under another FARMSTEAD_MQTT_BROKER_CONSUMERS (6 then 2
   * leaves `-2` to `-5`; 4 then 1 leaves `-0` to `-3`): still members of the shared subscription, the broker
   * goes on handing each its share of the reports, which no one would read. Each is resumed, leaves the
   * group (UNSUBSCRIBE), has what it holds stored like any message, and ends (session expiry 0). One killed
   * meanwhile is found again at the next start.
   */
  private async retireOrphans(): Promise<void> {
    const { url, clientId, consumers } = this.deps.config.mqttBroker;
    const inUse = new Set(consumerIds(clientId, consumers));
    const candidates = [clientId, ...consumerIds(clientId, MAX_CONSUMERS)].filter((id) => !inUse.has(id));
    let retired = 0;
    for (const id of candidates) {
      if (this.abort.signal.aborted) return;
      let last = this.now();
      let inFlight = 0;
      const client = mqtt.connect(url, {
        ...this.base,
        clientId: id,
        clean: false,
        resubscribe: false,
        reconnectPeriod: 0,
        properties: { sessionExpiryInterval: 0, receiveMaximum: RECEIVE_MAXIMUM },
        customHandleAcks: (_topic, _payload, packet, done) => {
          inFlight++;
          void this.consume(packet).then(
            () => {
              inFlight--;
              last = this.now();
              done(0);
            },
            () => {
              inFlight--;
            },
          );
        },
      });
      const connack = await new Promise<IConnackPacket | Error>((resolve) => {
        client.once('connect', resolve);
        client.once('error', resolve);
        client.once('close', () => resolve(new Error('connection closed')));
      });
      try {
        if (connack instanceof Error) {
          this.deps.log.warn(
            { err: connack, session: id },
            'MQTT broker: could not look for a session left behind',
          );
          return;
        }
        if (!connack.sessionPresent) continue;
        retired++;
        await client.unsubscribeAsync(SHARED_FILTERS).catch(() => {});
        // What it held arrives right after the CONNACK; it ends once quiet, nothing left in hand.
        while (!this.abort.signal.aborted && (inFlight > 0 || this.now() - last < RETIRE_QUIET_MS)) {
          await pause(100, this.abort.signal).catch(() => {});
        }
      } finally {
        await client.endAsync(this.abort.signal.aborted).catch(() => {});
      }
    }
    if (retired > 0) {
      this.deps.log.info(
        { sessions: retired },
        'MQTT broker: consumer sessions left by another FARMSTEAD_MQTT_BROKER_CONSUMERS emptied and ended',
      );
    }
  }

  private connected(client: MqttClient): Promise<void> {
    if (client.connected) return Promise.resolve();
    return new Promise((resolve) => client.once('connect', () => resolve()));
  }

  private async repair(dynsec: Dynsec): Promise<void> {
    try {
      const done = await dynsec.repair(this.db);
      if (done.removed + done.restored > 0) this.deps.log.info(done, 'MQTT broker: device logins repaired');
      if (done.withoutLogin > 0) {
        this.deps.log.warn(
          { devices: done.withoutLogin },
          'MQTT broker: devices without a login on the broker (made before dynamic security was on): rotate their keys',
        );
      }
    } catch (err) {
      this.deps.log.error({ err }, 'MQTT broker: the dynamic security repair pass failed');
    }
  }

  /** Up while every session is connected and every consumer holds its subscription (else reports go nowhere). */
  state(): BrokerState {
    return this.service.connected && this.consumers.every((c) => c.connected && this.subscribed.has(c))
      ? 'up'
      : 'down';
  }

  /** The devices service's hooks: the broker's logins follow the keys (dynsec), or nothing to do. */
  deviceKeyHooks(): DeviceKeyHooks {
    return this.dynsec ? this.dynsec.hooks() : NO_DEVICE_KEY_HOOKS;
  }

  private publish(topic: string, body: unknown, correlationData?: Buffer): void {
    this.service.publish(
      topic,
      JSON.stringify(body),
      { qos: 1, ...(correlationData ? { properties: { correlationData } } : {}) },
      (err) => {
        if (err) this.deps.log.warn({ err, topic }, 'MQTT publish failed');
      },
    );
  }

  /** One message from the shared subscription, handled until it succeeds (or the process stops). */
  private async consume(packet: IPublishPacket): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      if (this.abort.signal.aborted) throw new Error('closing');
      try {
        await this.handle(packet);
        return;
      } catch (err) {
        this.deps.log.error({ err, topic: packet.topic }, 'MQTT message failed; trying again');
        await pause(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)] as number, this.abort.signal);
      }
    }
  }

  private async handle(packet: IPublishPacket): Promise<void> {
    const match = DEVICE_TOPIC.exec(packet.topic);
    const deviceId = match?.[1];
    // Anything else on these filters is not a device's message: acknowledged and dropped.
    if (!match || !deviceId) return;
    const at = this.now();
    const answerTopic = match[2]
      ? topics.reportResult(deviceId)
      : topics.commandOutcome(deviceId, match[3] as string);
    const correlation = packet.properties?.correlationData;
    const payload = Buffer.isBuffer(packet.payload) ? packet.payload : Buffer.from(packet.payload);
    const { bodyLimitBytes, maxClockSkewS } = this.deps.config;
    if (payload.length > bodyLimitBytes) {
      const error = new AppError('payload_too_large', `Messages may be at most ${bodyLimitBytes} bytes.`);
      return this.publish(answerTopic, errorBody(error), correlation);
    }
    let outcome: Outcome<unknown>;
    if (match[2]) {
      const digest = createHash('sha256').update(payload).digest('base64url');
      try {
        outcome = await handleReport(this.db, deviceId, payload, at, {
          maxClockSkewMs: maxClockSkewS * 1000,
          delivery: { digest, redelivered: packet.dup },
        });
      } catch (err) {
        // Stored when it was handed over first; its answer went out then (or was lost with that process).
        if (err instanceof ReportAlreadyStored) return;
        throw err;
      }
      this.seen.set(deviceId, at);
    } else {
      outcome = await handleCommandResult(this.db, deviceId, match[3] as string, payload, at);
    }
    if (outcome.ok) await this.countUsage(deviceId, at);
    this.publish(answerTopic, outcomeJson(outcome), correlation);
  }

  private async countUsage(deviceId: string, at: number): Promise<void> {
    let account = this.accounts.get(deviceId);
    if (!account) {
      account = (await accountsOf(this.db, [deviceId])).get(deviceId);
      if (!account) return;
      if (this.accounts.size >= 100_000) this.accounts.clear();
      this.accounts.set(deviceId, account);
    }
    this.deps.usage.count(account, 'ingest', at);
  }

  /** Hands the device's waiting commands out on its commands topic (the first process to pick them up does). */
  private push(deviceId: string): Promise<void> {
    const previous = this.pushing.get(deviceId) ?? Promise.resolve();
    const settled = previous
      .then(async () => {
        const commands = await pickUpCommands(this.db, deviceId, this.now());
        for (const command of commands) this.publish(topics.commands(deviceId), command);
      })
      .catch((err: unknown) => this.deps.log.error({ err, deviceId }, 'pushing commands failed'));
    this.pushing.set(deviceId, settled);
    void settled.then(() => {
      if (this.pushing.get(deviceId) === settled) this.pushing.delete(deviceId);
    });
    return settled;
  }

  /** Every RECHECK_MS: commands due again (or whose notification was lost) of devices seen lately. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const since = this.now() - SEEN_MS;
      for (const [id, at] of this.seen) if (at < since) this.seen.delete(id);
      const ids = [...this.seen.keys()];
      for (let i = 0; i < ids.length; i += 500) {
        const due = await devicesWithCommandsDue(this.db, ids.slice(i, i + 500), this.now());
        for (const id of due) await this.push(id);
      }
    } catch (err) {
      this.deps.log.error({ err }, 'MQTT check of due commands failed');
    } finally {
      this.ticking = false;
    }
  }

  /**
   * Stops: messages in hand are left unacknowledged (the broker keeps them in the session for the next
   * start), the sessions close without ending (the broker keeps their subscriptions).
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.abort.abort();
      for (const timer of this.timers) clearInterval(timer);
      await Promise.all([...this.consumers, this.service].map((c) => c.endAsync(true).catch(() => {})));
      await this.bus?.close();
    })();
    return this.closed;
  }
}
