/**
 * FARMSTEAD_MQTT_BROKER_ADMIN set: each broker's kick (its adapter, beside its hooks) chosen by the kind
 * named there, and the process's kicks started (kick.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { BrokerAdminKind, MqttBrokerAdminConfig } from '../../config.ts';
import { emqxKick } from './emqx.ts';
import { BrokerKicks, type KickAdapter } from './kick.ts';
import { rabbitKick } from './rabbitmq.ts';
import { verneKick } from './vernemq.ts';

export const KICK_ADAPTERS: Readonly<Record<BrokerAdminKind, KickAdapter>> = {
  emqx: emqxKick,
  vernemq: verneKick,
  rabbitmq: rabbitKick,
};

/** Starts listening for changed keys on the bus; the caller closes it with the app. */
export async function startBrokerKicks(deps: {
  admin: MqttBrokerAdminConfig;
  databaseUrl: string | null;
  log: FastifyBaseLogger;
  retryMs?: readonly number[];
}): Promise<BrokerKicks> {
  const kicks = new BrokerKicks({ ...deps, adapter: KICK_ADAPTERS[deps.admin.kind] });
  await kicks.start();
  deps.log.info(
    { broker: deps.admin.kind, admin: deps.admin.url },
    'MQTT broker: sessions of rotated or deleted device keys are disconnected through the admin API',
  );
  return kicks;
}
