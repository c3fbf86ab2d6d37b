/**
 * Mosquitto's dynamic security plugin kept in step with Farmstead's devices (FARMSTEAD_MQTT_BROKER_AUTH=dynsec),
 * through its control topic `$CONTROL/dynamic-security/v1`: every device is a client (username = device
 * id, password = device key) with a role of its own allowing only its own topics, written literally
 * (access.ts's rule; Mosquitto 2.0 does not expand %c in a role). A key issued sets the password (the
 * plugin disconnects the client's sessions when it changes), a device deleted removes its client and role,
 * and a repair pass (each time the service session connects, every REPAIR_MS and when a farm's devices all
 * go) removes what no longer exists and restores missing roles. Keys are stored hashed: a device whose
 * client is missing can only get one with a new key (docs/deployment.md), so a key is issued only once the
 * broker has it (a 503 `unavailable`, nothing changed, while it cannot be told).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { MqttClient } from 'mqtt';
import type { Db } from '../../db/schema.ts';
import { AppError } from '../../domain/errors.ts';
import { deviceIdsAfter } from '../devices/repository.ts';
import type { DeviceKeyHooks } from '../devices/service.ts';
import { deviceTopicRules, type TopicRule } from './access.ts';

export const DYNSEC_TOPIC = '$CONTROL/dynamic-security/v1';
const RESPONSE_TOPIC = `${DYNSEC_TOPIC}/response`;
/** How long a command batch may wait for the plugin's answer. */
const ANSWER_MS = 10_000;
/** Commands sent in one control message (the plugin saves its file once per message). */
const BATCH = 200;
/** Device clients are named by device id; their roles by this prefix and the id. */
export const DEVICE_ROLE_PREFIX = 'farmstead-device-';
const DEVICE_ID = /^dev_[0-9A-Za-z]+$/;

type Command = Record<string, unknown> & { command: string };
interface Answer {
  command: string;
  error?: string;
  data?: Record<string, unknown>;
  correlationData?: string;
}

const ACL_TYPES: Record<TopicRule['kind'], string> = {
  publish: 'publishClientSend',
  subscribe: 'subscribePattern',
  receive: 'publishClientReceive',
};

export function deviceRole(deviceId: string): string {
  return `${DEVICE_ROLE_PREFIX}${deviceId}`;
}

/** The role a device gets: access.ts's rules as the plugin's ACLs, the first rule the highest priority. */
export function deviceRoleCommand(deviceId: string): Command {
  const rules = deviceTopicRules(deviceId);
  return {
    command: 'createRole',
    rolename: deviceRole(deviceId),
    textname: `Farmstead device ${deviceId}`,
    acls: rules.map((rule, i) => ({
      acltype: ACL_TYPES[rule.kind],
      topic: rule.topic,
      priority: rules.length - i,
      allow: rule.allow,
    })),
  };
}

export class Dynsec {
  private readonly client: MqttClient;
  private readonly log: FastifyBaseLogger;
  private readonly waiting = new Map<string, (answer: Answer) => void>();
  /**
   * Every process's service session gets every answer on the response topic: each process's correlation
   * data starts with a prefix of its own, so one never takes another's answer for its command.
   */
  private readonly prefix = randomBytes(6).toString('hex');
  private next = 0;
  private subscribed: Promise<void> | null = null;

  constructor(client: MqttClient, log: FastifyBaseLogger) {
    this.client = client;
    this.log = log;
    client.on('message', (topic, payload) => {
      if (topic !== RESPONSE_TOPIC) return;
      let answers: Answer[] = [];
      try {
        answers = (JSON.parse(payload.toString('utf8')) as { responses?: Answer[] }).responses ?? [];
      } catch {
        return;
      }
      for (const answer of answers) {
        const done = answer.correlationData ? this.waiting.get(answer.correlationData) : undefined;
        if (!done || !answer.correlationData) continue;
        this.waiting.delete(answer.correlationData);
        done(answer);
      }
    });
    // A lost session loses the subscription: subscribe again on every new session.
    client.on('connect', (connack) => {
      if (!connack.sessionPresent) this.subscribed = null;
    });
  }

  private subscribe(): Promise<void> {
    this.subscribed ??= this.client.subscribeAsync(RESPONSE_TOPIC, { qos: 1 }).then(
      () => {},
      (err: unknown) => {
        this.subscribed = null;
        throw err;
      },
    );
    return this.subscribed;
  }

  /**
   * Sends commands (in batches) and resolves to the plugin's answers, in order. Refuses at once while the
   * broker is unreachable (mqtt.js would hold the message and send it whenever it came back).
   */
  async run(commands: Command[]): Promise<Answer[]> {
    if (!this.client.connected) throw new Error('dynamic security: the MQTT broker is unreachable');
    await this.subscribe();
    const answers: Answer[] = [];
    for (let i = 0; i < commands.length; i += BATCH) {
      const batch = commands
        .slice(i, i + BATCH)
        .map((c) => ({ ...c, correlationData: `${this.prefix}-${this.next++}` }));
      const pending = batch.map(
        (c) =>
          new Promise<Answer>((resolve, reject) => {
            const timer = setTimeout(() => {
              this.waiting.delete(c.correlationData);
              reject(new Error(`dynamic security: no answer to ${c.command} within ${ANSWER_MS} ms`));
            }, ANSWER_MS);
            this.waiting.set(c.correlationData, (answer) => {
              clearTimeout(timer);
              resolve(answer);
            });
          }),
      );
      // Awaited with the publish: a publish that never settles (the connection lost under it) ends with the
      // answers' deadline, and a deadline that passes first is never an unhandled rejection.
      const all = Promise.all(pending);
      all.catch(() => {});
      await Promise.race([
        this.client.publishAsync(DYNSEC_TOPIC, JSON.stringify({ commands: batch }), { qos: 1 }),
        all,
      ]);
      answers.push(...(await all));
    }
    return answers;
  }

  /** Gives the device a client with `key` as its password and its role; an existing client's sessions end. */
  async keyIssued(deviceId: string, key: string): Promise<void> {
    const roles = [{ rolename: deviceRole(deviceId) }];
    const [, created] = await this.run([
      deviceRoleCommand(deviceId),
      { command: 'createClient', username: deviceId, password: key, roles },
    ]);
    if (!created?.error) return;
    if (created.error !== 'Client already exists') throw new Error(`dynamic security: ${created.error}`);
    // modifyClient sets password and roles at once and disconnects the client's sessions (the old key's).
    const [modified] = await this.run([
      { command: 'modifyClient', username: deviceId, password: key, roles },
    ]);
    if (modified?.error) throw new Error(`dynamic security: ${modified.error}`);
  }

  /** Removes the device's client (its sessions end) and its role. */
  async removed(deviceId: string): Promise<void> {
    await this.run([
      { command: 'deleteClient', username: deviceId },
      { command: 'deleteRole', rolename: deviceRole(deviceId) },
    ]);
  }

  private async names(command: 'listClients' | 'listRoles', member: string): Promise<string[]> {
    const [answer] = await this.run([{ command, verbose: false }]);
    if (answer?.error) throw new Error(`dynamic security: ${answer.error}`);
    const list = (answer?.data?.[member] ?? []) as Array<string | Record<string, string>>;
    return list.map((entry) =>
      typeof entry === 'string' ? entry : (entry.username ?? entry.rolename ?? ''),
    );
  }

  /**
   * Repairs drift: device clients and roles of devices that no longer exist are removed, device clients
   * missing their role get it back. Returns what it did, and how many devices have no client (made before
   * the switch, or while the broker was unreachable: they need a new key).
   */
  async repair(db: Db): Promise<{ removed: number; restored: number; withoutLogin: number }> {
    const clients = new Set((await this.names('listClients', 'clients')).filter((n) => DEVICE_ID.test(n)));
    const roles = new Set(
      (await this.names('listRoles', 'roles')).filter((n) => n.startsWith(DEVICE_ROLE_PREFIX)),
    );
    const existing = new Set<string>();
    let withoutLogin = 0;
    for (let after = ''; ; ) {
      const devices = await deviceIdsAfter(db, after, 5_000);
      if (devices.length === 0) break;
      for (const { id, sample } of devices) {
        existing.add(id);
        // The sample farm's devices are simulated: they never log in.
        if (!clients.has(id) && !sample) withoutLogin++;
      }
      after = devices[devices.length - 1]?.id as string;
    }
    const commands: Command[] = [];
    let removed = 0;
    let restored = 0;
    for (const name of clients) {
      if (existing.has(name)) {
        if (roles.has(deviceRole(name))) continue;
        restored++;
        commands.push(deviceRoleCommand(name), {
          command: 'addClientRole',
          username: name,
          rolename: deviceRole(name),
        });
      } else {
        removed++;
        commands.push({ command: 'deleteClient', username: name });
      }
    }
    for (const role of roles) {
      if (!existing.has(role.slice(DEVICE_ROLE_PREFIX.length))) {
        commands.push({ command: 'deleteRole', rolename: role });
      }
    }
    if (commands.length > 0) await this.run(commands);
    return { removed, restored, withoutLogin };
  }

  /**
   * The devices service's hooks. A key the broker could not be given is refused (503 `unavailable`): the
   * device service undoes the change, so the old key stays the device's key on both sides. A removal the
   * broker missed is logged; the repair pass removes it when the broker is back.
   */
  hooks(): DeviceKeyHooks {
    return {
      keyIssued: (deviceId, key) =>
        this.keyIssued(deviceId, key).catch((err: unknown) => {
          this.log.error({ err, device: deviceId }, 'MQTT broker: could not set the device login');
          throw new AppError(
            'unavailable',
            'The MQTT broker could not be given the device’s key (it is unreachable or did not answer): nothing was changed. Try again once it is back.',
          );
        }),
      removed: (deviceId) =>
        this.removed(deviceId).catch((err: unknown) =>
          this.log.error(
            { err, device: deviceId },
            'MQTT broker: could not remove the device login; the repair pass will',
          ),
        ),
    };
  }
}
