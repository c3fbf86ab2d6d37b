/**
 * Where MQTT connections come from: a TCP listener (FARMSTEAD_MQTT_PORT, started by `serve`) and MQTT over
 * WebSocket at `/mqtt` on the HTTP listener. A port already taken (another broker on the farm computer)
 * leaves the TCP listener down, says so loudly, and the service carries on over WebSocket.
 */
import { createServer, type Server } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { createWebSocketStream, WebSocketServer } from 'ws';
import type { Config } from '../../config.ts';
import { type DeviceKeyHooks, NO_DEVICE_KEY_HOOKS } from '../devices/service.ts';
import { createMqttBroker, type MqttBroker, type MqttDeps } from './broker.ts';
import type { BrokerState } from './external.ts';

export type ListenerState = 'up' | 'down' | 'off';

export interface MqttService {
  /** The embedded broker; on an external broker one that serves no connection. */
  broker: MqttBroker;
  /** What /healthz reports; `broker` only with an external broker (its sessions all connected, or not). */
  status(): { tcp: ListenerState; ws: ListenerState; broker?: BrokerState };
  /** What the devices service tells of keys issued and devices deleted (an external broker's logins). */
  deviceKeyHooks: DeviceKeyHooks;
  /**
   * Starts the TCP listener; null turns it off. Resolves to the port listened on, or null when it is off
   * or the port is taken (logged as an error naming FARMSTEAD_MQTT_PORT).
   */
  listenTcp(port: number | null, host: string): Promise<number | null>;
}

declare module 'fastify' {
  interface FastifyInstance {
    mqtt: MqttService;
  }
}

export const MQTT_WS_PATH = '/mqtt';

/** How long a start waits for an external broker before serving without it (it keeps trying). */
const BROKER_WAIT_MS = 15_000;

type InstallDeps = Omit<MqttDeps, 'log' | 'config'> & {
  config: MqttDeps['config'] & Pick<Config, 'mqttBroker' | 'mqttBrokerAuth'>;
};

/**
 * On an external broker (FARMSTEAD_MQTT_BROKER) this process is its client (external.ts); no embedded
 * broker, no TCP listener and no /mqtt WebSocket: devices connect to the broker's own listeners.
 */
async function installExternal(
  app: FastifyInstance,
  deps: InstallDeps,
  broker: NonNullable<Config['mqttBroker']>,
): Promise<MqttService> {
  // Loaded here: the embedded broker (the default) never needs the MQTT client library.
  const { ExternalBroker } = await import('./external.ts');
  const external = new ExternalBroker({
    database: deps.database,
    config: { ...deps.config, mqttBroker: broker },
    usage: deps.usage,
    log: app.log,
    ...(deps.clock ? { clock: deps.clock } : {}),
  });
  await external.start(BROKER_WAIT_MS);
  app.addHook('preClose', () => external.close());
  const service: MqttService = {
    broker: {
      handle: (stream) => stream.destroy(),
      connectedDevices: () => [],
      close: () => external.close(),
    },
    status: () => ({ tcp: 'off', ws: 'off', broker: external.state() }),
    deviceKeyHooks: external.deviceKeyHooks(),
    listenTcp: async () => null,
  };
  app.decorate('mqtt', service);
  return service;
}

/** Creates the broker, serves it over WebSocket at /mqtt on the app's server and closes it with the app. */
export async function installMqtt(app: FastifyInstance, deps: InstallDeps): Promise<MqttService> {
  if (deps.config.mqttBroker) return installExternal(app, deps, deps.config.mqttBroker);
  const broker = await createMqttBroker({ ...deps, log: app.log });
  let tcp: Server | null = null;
  let tcpState: ListenerState = 'off';

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: deps.config.bodyLimitBytes + 64 * 1024,
  });
  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== MQTT_WS_PATH) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      broker.handle(createWebSocketStream(ws), request);
    });
  });

  const service: MqttService = {
    broker,
    status: () => ({ tcp: tcpState, ws: 'up' }),
    deviceKeyHooks: NO_DEVICE_KEY_HOOKS,
    async listenTcp(port, host) {
      if (port === null) {
        tcpState = 'off';
        return null;
      }
      const server = createServer((socket) => broker.handle(socket));
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(port, host, () => {
            server.off('error', reject);
            resolve();
          });
        });
      } catch (err) {
        tcpState = 'down';
        const code = (err as NodeJS.ErrnoException).code;
        app.log.error(
          { err, port },
          code === 'EADDRINUSE'
            ? `MQTT over TCP is DOWN: port ${port} is already taken (another MQTT broker?). Set FARMSTEAD_MQTT_PORT to a free port, or to "off". MQTT over WebSocket is still served at ${MQTT_WS_PATH}.`
            : `MQTT over TCP is DOWN: cannot listen on port ${port} (${code ?? 'error'}). Set FARMSTEAD_MQTT_PORT to another port, or to "off". MQTT over WebSocket is still served at ${MQTT_WS_PATH}.`,
        );
        return null;
      }
      server.on('error', (err) => app.log.error({ err }, 'MQTT TCP listener error'));
      tcp = server;
      tcpState = 'up';
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : port;
      app.log.info({ port: bound }, 'MQTT listening (TCP)');
      return bound;
    },
  };

  // preClose, before the HTTP server waits for its connections: MQTT connections (WebSocket ones are the
  // HTTP server's sockets) end with the broker, then the listeners can close.
  app.addHook('preClose', async () => {
    await broker.close();
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
    const server = tcp;
    tcp = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  app.decorate('mqtt', service);
  return service;
}
