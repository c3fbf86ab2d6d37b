/**
 * Mosquitto's dynamic security plugin kept in step with Farmstead's devices (FARMSTEAD_MQTT_BROKER_AUTH=dynsec),
 * through its control topic `$CONTROL/dynamic-security/v1`: every device is a client (username = device
 * id, password = device key) with a role of its own allowing only its own topics, written literally
 * (access.ts's rule; Mosquitto 2.0 does not expand %c in a role). A key issued sets the password (the
 * plugin disconnects the client's sessions when it changes), a device deleted removes its client and role,
 * and a repair pass (at start, every REPAIR_MS and when a farm's devices all go) removes what no longer
 * exists and restores missing roles. Keys are stored hashed: a device whose client is missing can only
 * get one with a new key (docs/deployment.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { MqttClient } from 'mqtt';
import type { Db } from '../../db/schema.ts';
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

/** The role a device gets: access.ts's rules as the plugin's ACLs. */
export function deviceRoleCommand(deviceId: string): Command {
  return {
    command: 'createRole',
    rolename: deviceRole(deviceId),
    textname: `Farmstead device ${deviceId}`,
    acls: deviceTopicRules(deviceId).map((rule) => ({
      acltype: ACL_TYPES[rule.kind],
      topic: rule.topic,
      priority: 0,
      allow: rule.allow,
    })),
  };
}

export class Dynsec {
  private readonly client: MqttClient;
  private readonly log: FastifyBaseLogger;
  private readonly waiting = new Map<string, (answer: Answer) => void>();
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

  /** Sends commands (in batches) and resolves to the plugin's answers, in order. */
  async run(commands: Command[]): Promise<Answer[]> {
    await this.subscribe();
    const answers: Answer[] = [];
    for (let i = 0; i < commands.length; i += BATCH) {
      const batch = commands.slice(i, i + BATCH).map((c) => ({ ...c, correlationData: `fs${this.next++}` }));
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
      await this.client.publishAsync(DYNSEC_TOPIC, JSON.stringify({ commands: batch }), { qos: 1 });
      answers.push(...(await Promise.all(pending)));
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
      const ids = await deviceIdsAfter(db, after, 5_000);
      if (ids.length === 0) break;
      for (const id of ids) {
        existing.add(id);
        if (!clients.has(id)) withoutLogin++;
      }
      after = ids[ids.length - 1] as string;
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

  /** The devices service's hooks: failures are logged (the broker is then out of step until the next key). */
  hooks(): DeviceKeyHooks {
    return {
      keyIssued: (deviceId, key) =>
        this.keyIssued(deviceId, key).catch((err: unknown) =>
          this.log.error(
            { err, device: deviceId },
            'MQTT broker: could not set the device login; the device cannot connect until its key is rotated',
          ),
        ),
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
