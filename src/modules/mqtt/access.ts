/**
 * Who may connect, publish and subscribe on a broker, decided by Farmstead: the one rule the embedded
 * broker, an external broker's dynamic security roles (dynsec.ts) and any authentication hook a broker
 * asks share. A device logs in with username = device id and password = device key, publishes only its
 * own reports and command answers, and subscribes only inside its own `farmstead/devices/{id}/` subtree.
 */
import { deviceKeyCache } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { authenticateDevice } from '../devices/service.ts';
import { maySubscribe, parseDevicePublish, topics } from './topics.ts';

/** A device allowed on: its id, its farm and its farm's account. */
export interface DeviceLogin {
  deviceId: string;
  farmId: string;
  accountId: string;
}

/**
 * CONNECT: the device whose key `password` is, when `username` is that device's id; null otherwise. Through
 * the key cache (calls/key-cache.ts), as HTTP device keys are: a broker asking at every connection gets its
 * answer without a query, and a rotated or deleted key is forgotten at once.
 */
export async function mayConnect(db: Db, username: string, password: string): Promise<DeviceLogin | null> {
  if (!password.startsWith('rd_')) return null;
  const device = await deviceKeyCache.lookup(db, hashSecret(password), async () => {
    const found = await authenticateDevice(db, password);
    return found && { value: found, id: found.deviceId, farmId: found.farmId };
  });
  if (!device || device.deviceId !== username) return null;
  return { deviceId: device.deviceId, farmId: device.farmId, accountId: device.accountId };
}

const DEVICE_ID = /^dev_[0-9A-Za-z]+$/;

/**
 * A client id a device may connect with on an external broker, where client ids are the broker's (one
 * session per id, whoever logs in): anything but another device's id, so no device takes over the session
 * (and the subscriptions, and the commands) of a device that uses its id as its client id.
 */
export function mayUseClientId(deviceId: string, clientId: string): boolean {
  return clientId === deviceId || !DEVICE_ID.test(clientId);
}

/** PUBLISH: a device's own report or the answer to one of its commands. */
export function mayPublish(deviceId: string, topic: string): boolean {
  return parseDevicePublish(deviceId, topic) !== null;
}

/** SUBSCRIBE: filters inside the device's own subtree (no wildcard above it, no shared subscription). */
export function maySubscribeTo(deviceId: string, filter: string): boolean {
  return maySubscribe(deviceId, filter);
}

/** One line of a device's topic list; the list is in order, the first rule matching a topic decides. */
export interface TopicRule {
  /** The broker's names for the four kinds of check. */
  kind: 'publish' | 'subscribe' | 'receive';
  /** The device's topics written out literally (Mosquitto 2.0 does not expand %c or %u in its roles). */
  topic: string;
  allow: boolean;
}

/**
 * The same rule as a broker's topic list for one device: publish its report and its command answers,
 * subscribe inside its subtree, not receive what it sends itself (the embedded broker does not forward
 * device → service topics back to devices either), and receive nothing of another device: a device that
 * connects with another's client id takes over that session's subscriptions on an external broker (client
 * ids are the broker's, not per device), and must get none of its commands.
 */
export function deviceTopicRules(deviceId: string): TopicRule[] {
  const answers = topics.commandResult(deviceId, '+');
  const subtree = topics.subtree(deviceId);
  return [
    { kind: 'publish', topic: topics.report(deviceId), allow: true },
    { kind: 'publish', topic: answers, allow: true },
    { kind: 'subscribe', topic: subtree, allow: true },
    { kind: 'receive', topic: topics.report(deviceId), allow: false },
    { kind: 'receive', topic: answers, allow: false },
    { kind: 'receive', topic: subtree, allow: true },
    { kind: 'receive', topic: topics.everyDevice, allow: false },
  ];
}
