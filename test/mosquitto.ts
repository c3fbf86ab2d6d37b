/**
 * A real Mosquitto for tests: its own configuration and dynamic security file in a temp folder, on a free
 * port of 127.0.0.1 (never the system service's). The file holds what deploy/mosquitto/dynsec-init.sh makes:
 * Farmstead's login with the plugin's admin role and the `farmstead-service` role (the devices' topics
 * through the shared subscription); devices are added by Farmstead itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import { deviceRole, deviceRoleCommand } from '../src/modules/mqtt/dynsec.ts';
import { waitFor } from './engines.ts';
import { onFreePort } from './throwaway.ts';

export const MOSQUITTO = '/usr/sbin/mosquitto';
export const DYNSEC_PLUGIN = '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so';

/** Whether this machine can run the tests (both files present). */
export function mosquittoAvailable(): boolean {
  return existsSync(MOSQUITTO) && existsSync(DYNSEC_PLUGIN);
}

/** A password as the plugin stores it: PBKDF2-SHA512, 12 bytes of salt, 101 iterations (its defaults). */
function hashed(password: string): { password: string; salt: string; iterations: number } {
  const salt = randomBytes(12);
  const hash = pbkdf2Sync(password, salt, 101, 64, 'sha512');
  return { password: hash.toString('base64'), salt: salt.toString('base64'), iterations: 101 };
}

const allow = (acltype: string, topic: string) => ({ acltype, topic, priority: 0, allow: true });

/**
 * The dynamic security file: Farmstead's login with the roles deploy/mosquitto/dynsec-init.sh gives it, and
 * `devices` with the client and role Farmstead's dynamic security gives each (bench/fleet.ts: thousands of
 * devices written at once, where one control message each would rewrite the file thousands of times).
 */
export function dynsecFile(
  username: string,
  password: string,
  devices: ReadonlyArray<{ id: string; key: string }> = [],
): unknown {
  const deviceRoles = devices.map((d) => {
    const { command: _command, ...role } = deviceRoleCommand(d.id);
    return role;
  });
  const deviceClients = devices.map((d) => ({
    username: d.id,
    ...hashed(d.key),
    roles: [{ rolename: deviceRole(d.id) }],
  }));
  return {
    defaultACLAccess: {
      publishClientSend: false,
      publishClientReceive: true,
      subscribe: false,
      unsubscribe: true,
    },
    clients: [
      {
        username,
        textname: 'Farmstead',
        ...hashed(password),
        roles: [{ rolename: 'admin' }, { rolename: 'farmstead-service' }],
      },
      ...deviceClients,
    ],
    groups: [],
    roles: [
      {
        rolename: 'admin',
        acls: [
          allow('publishClientSend', '$CONTROL/dynamic-security/#'),
          allow('publishClientReceive', '$CONTROL/dynamic-security/#'),
          allow('subscribePattern', '$CONTROL/dynamic-security/#'),
          allow('publishClientReceive', '$SYS/#'),
          allow('subscribePattern', '$SYS/#'),
          allow('publishClientReceive', '#'),
          allow('subscribePattern', '#'),
          allow('unsubscribePattern', '#'),
        ],
      },
      {
        rolename: 'farmstead-service',
        acls: [
          allow('publishClientSend', 'farmstead/devices/#'),
          allow('publishClientReceive', 'farmstead/devices/#'),
          allow('subscribePattern', '$share/farmstead/farmstead/devices/#'),
          allow('unsubscribePattern', '$share/farmstead/farmstead/devices/#'),
        ],
      },
      ...deviceRoles,
    ],
  };
}

export interface Mosquitto {
  port: number;
  url: string;
  /** Farmstead's login, as FARMSTEAD_MQTT_BROKER carries it. */
  brokerUrl: string;
  output: { text: string };
  child: ChildProcess;
  /** Ends the broker as a service stop would (SIGTERM: with persistence, it saves its state first). */
  kill(): Promise<void>;
  /** Starts it again on the same port with the same files (after kill). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `devices`: logins written into the dynamic security file before the start (see dynsecFile). On a free
 * port; one taken before Mosquitto listened makes it exit saying so, and it is started again on another
 * (onFreePort). `port` chooses the port (a test of this gives a taken one first).
 */
export function startMosquitto(
  options: {
    devices?: ReadonlyArray<{ id: string; key: string }>;
    port?: () => Promise<number>;
    /** As the reference config (deploy/mosquitto/mosquitto.conf): sessions saved across a restart. */
    persistence?: boolean;
  } = {},
): Promise<Mosquitto> {
  return onFreePort((port) => startMosquittoOn(port, options), /Address already in use/, options.port);
}

async function startMosquittoOn(
  port: number,
  options: { devices?: ReadonlyArray<{ id: string; key: string }>; persistence?: boolean },
): Promise<Mosquitto> {
  const dir = mkdtempSync(path.join(tmpdir(), 'farmstead-mosquitto-'));
  const password = randomBytes(12).toString('hex');
  const dynsec = path.join(dir, 'dynamic-security.json');
  writeFileSync(dynsec, JSON.stringify(dynsecFile('farmstead', password, options.devices), null, 2));
  const conf = path.join(dir, 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      // Root would otherwise become the `mosquitto` user, who cannot write this root-owned folder.
      ...(process.getuid?.() === 0 ? ['user root'] : []),
      'per_listener_settings false',
      `listener ${port} 127.0.0.1`,
      'allow_anonymous false',
      `plugin ${DYNSEC_PLUGIN}`,
      `plugin_opt_config_file ${dynsec}`,
      ...(options.persistence ? ['persistence true', `persistence_location ${dir}/`] : ['persistence false']),
      // Farmstead's sessions keep what arrives while a process restarts: no cap on queued messages.
      'max_queued_messages 0',
      'log_dest stderr',
      ...(process.env.MOSQUITTO_LOG ? ['log_type all'] : ['log_type error', 'log_type warning']),
      '',
    ].join('\n'),
  );
  const output = { text: '' };
  const url = `mqtt://127.0.0.1:${port}`;
  const brokerUrl = `mqtt://farmstead:${password}@127.0.0.1:${port}`;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.on('data', (d) => {
      output.text += String(d);
    });
    child.stderr?.on('data', (d) => {
      output.text += String(d);
    });
    try {
      await waitFor(
        'Mosquitto to accept Farmstead',
        async () => {
          if (child.exitCode !== null) throw new Error(`mosquitto exited: ${output.text}`);
          const client = await mqtt
            .connectAsync(url, { username: 'farmstead', password, reconnectPeriod: 0, connectTimeout: 1_000 })
            .catch(() => null);
          await client?.endAsync(true);
          return client !== null;
        },
        10_000,
      );
    } catch (err) {
      // A broker that never took Farmstead's login is not left running.
      if (child.exitCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      throw err;
    }
    return child;
  };
  let child: ChildProcess;
  try {
    child = await launch();
  } catch (err) {
    // Nor its folder left behind.
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const kill = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  return {
    port,
    url,
    brokerUrl,
    output,
    get child() {
      return child;
    },
    kill,
    async restart() {
      await kill();
      child = await launch();
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
