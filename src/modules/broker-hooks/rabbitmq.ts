/**
 * RabbitMQ's rabbitmq_auth_backend_http (rabbitmq/rabbitmq-server deps/rabbitmq_auth_backend_http/README.md):
 * four paths, asked by GET (query string) or POST (form), answered 200 with the text `allow` or `deny`.
 * With the MQTT plugin a device's topic reaches topic_path as an AMQP routing key on the `amq.topic`
 * exchange: `/` becomes `.` and the filter wildcard `+` becomes `*` (`#` stays); publishing is `write`,
 * subscribing `read`. The MQTT plugin also asks resource_path for the device's own subscription queues
 * (`mqtt-subscription-<client id>qos0|qos1`) and the `amq.topic` exchange; a device gets those and nothing
 * else. Farmstead's own login gets everything.
 */
import { mayUseClientId } from '../mqtt/access.ts';
import { type KickAdapter, statusOutcome } from './kick.ts';
import type { RabbitFields } from './schemas.ts';
import { type HookDeps, hookLogin, hookMayPublish, hookMaySubscribe, isServiceLogin } from './service.ts';

export type RabbitAnswer = 'allow' | 'deny';

/** The MQTT plugin's exchange for MQTT topics (mqtt.exchange, its default). */
const MQTT_EXCHANGE = 'amq.topic';
const SUBSCRIPTION_QUEUE = /^mqtt-subscription-(.+)qos[01]$/;

/** An AMQP routing key as the MQTT topic or filter it came from. */
export function topicOfRoutingKey(routingKey: string): string {
  return routingKey
    .split('.')
    .map((word) => (word === '*' ? '+' : word))
    .join('/');
}

export async function rabbitUser(deps: HookDeps, fields: RabbitFields): Promise<RabbitAnswer> {
  return (await hookLogin(deps, fields.username, fields.password ?? '')) ? 'allow' : 'deny';
}

/** The user was let in by user_path: any virtual host the operator pointed the MQTT plugin at. */
export function rabbitVhost(): RabbitAnswer {
  return 'allow';
}

export function rabbitResource(deps: HookDeps, fields: RabbitFields): RabbitAnswer {
  if (isServiceLogin(deps, fields.username)) return 'allow';
  const { resource, name, permission } = fields;
  if (
    resource === 'exchange' &&
    name === MQTT_EXCHANGE &&
    (permission === 'read' || permission === 'write')
  ) {
    return 'allow';
  }
  // A session's queue is named by its client id: never another device's (access.ts mayUseClientId).
  const clientId =
    resource === 'queue' && name !== undefined ? SUBSCRIPTION_QUEUE.exec(name)?.[1] : undefined;
  return clientId !== undefined && mayUseClientId(fields.username, clientId) ? 'allow' : 'deny';
}

export function rabbitTopic(deps: HookDeps, fields: RabbitFields): RabbitAnswer {
  if (isServiceLogin(deps, fields.username)) return 'allow';
  if (fields.name !== MQTT_EXCHANGE || fields.routing_key === undefined) return 'deny';
  const topic = topicOfRoutingKey(fields.routing_key);
  const allowed =
    fields.permission === 'write'
      ? hookMayPublish(deps, fields.username, topic)
      : fields.permission === 'read' && hookMaySubscribe(deps, fields.username, topic);
  return allowed ? 'allow' : 'deny';
}

/**
 * RabbitMQ's kick (the management plugin's HTTP API, `DELETE /api/connections/username/{username}`: every
 * connection of the user, MQTT ones included), HTTP Basic with a management user. A device's username is its
 * id, so every login of the device is one kick, and a key change is kicked by every process whether or not
 * its hooks let the device in (no connection left: 404, nothing to do).
 */
export const rabbitKick: KickAdapter = {
  byDevice: true,
  target: (login) => login.deviceId,
  request: (login) => ({
    method: 'DELETE',
    path: `/api/connections/username/${encodeURIComponent(login.deviceId)}`,
  }),
  outcome: (status) => statusOutcome(status),
};
