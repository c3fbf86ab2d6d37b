/**
 * What a broker's hook asks, answered with the one rule every broker shares (mqtt/access.ts): who may
 * connect, publish and subscribe. The formats (emqx.ts, vernemq.ts, rabbitmq.ts) only translate. Besides
 * devices, the login Farmstead's own processes use on the broker (FARMSTEAD_MQTT_BROKER's user) is let in
 * with every right: when the hooks are a broker's only authority, Farmstead must be able to connect too.
 */
import type { Db } from '../../db/schema.ts';
import { sameSecret } from '../../lib/secrets.ts';
import { mayConnect, mayPublish, maySubscribeTo, mayUseClientId } from '../mqtt/access.ts';
import type { LetIn } from './kick.ts';

/** Farmstead's own login on the broker, when it has one. */
export interface ServiceLogin {
  username: string | null;
  password: string | null;
}

export interface HookDeps {
  db: Db;
  service: ServiceLogin | null;
  /** Told of every device login let in, with the session's names (kick.ts, when the admin API is set). */
  letIn?: ((login: LetIn) => void) | undefined;
}

export type HookLogin = { kind: 'service' } | { kind: 'device'; deviceId: string; farmId: string };

function isService(deps: HookDeps, username: string): boolean {
  const name = deps.service?.username;
  return typeof name === 'string' && name !== '' && username === name;
}

/**
 * CONNECT with `username` and `password`: the login allowed, or null. A device let in is told to
 * `deps.letIn` with the session's client id and mountpoint (what a kick names it by).
 */
export async function hookLogin(
  deps: HookDeps,
  username: string,
  password: string,
  session: { clientId?: string | undefined; mountpoint?: string | undefined } = {},
): Promise<HookLogin | null> {
  if (isService(deps, username)) {
    const expected = deps.service?.password;
    return expected && sameSecret(password, expected) ? { kind: 'service' } : null;
  }
  const device = await mayConnect(deps.db, username, password);
  if (!device) return null;
  if (session.clientId && !mayUseClientId(device.deviceId, session.clientId)) return null;
  deps.letIn?.({
    deviceId: device.deviceId,
    farmId: device.farmId,
    clientId: session.clientId || null,
    mountpoint: session.mountpoint ?? '',
  });
  return { kind: 'device', deviceId: device.deviceId, farmId: device.farmId };
}

/**
 * PUBLISH by a session the broker already let in as `username` (the broker asks only for its own
 * sessions, and the hook secret proves the broker asks).
 */
export function hookMayPublish(deps: HookDeps, username: string, topic: string): boolean {
  return isService(deps, username) || mayPublish(username, topic);
}

/** SUBSCRIBE to `filter` by a session the broker let in as `username`. */
export function hookMaySubscribe(deps: HookDeps, username: string, filter: string): boolean {
  return isService(deps, username) || maySubscribeTo(username, filter);
}

/** Whether `username` is Farmstead's own login (RabbitMQ asks about its queues and exchanges too). */
export function isServiceLogin(deps: HookDeps, username: string): boolean {
  return isService(deps, username);
}
