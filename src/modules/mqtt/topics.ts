/**
 * MQTT topics are an interface like URLs: every topic a device uses is built or recognised here, and the
 * ACL (a device publishes and subscribes only under its own `farmstead/devices/{device_id}/`) lives here.
 */

const ROOT = 'farmstead/devices';

export const topics = {
  /** device → service: a report, the same JSON body as POST /v1/ingest. */
  report: (deviceId: string) => `${ROOT}/${deviceId}/report`,
  /** service → device: the outcome of a report, `{ok, accepted, commands}` or the Error object. */
  reportResult: (deviceId: string) => `${ROOT}/${deviceId}/report/result`,
  /** service → device: one Command per message, QoS 1. */
  commands: (deviceId: string) => `${ROOT}/${deviceId}/commands`,
  /** device → service: `{status, result}`, as POST /v1/device/commands/{id}. */
  commandResult: (deviceId: string, commandId: string) => `${ROOT}/${deviceId}/commands/${commandId}/result`,
  /** service → device: the outcome of an answer, the Command or the Error object. */
  commandOutcome: (deviceId: string, commandId: string) =>
    `${ROOT}/${deviceId}/commands/${commandId}/result/outcome`,
  /** Filters: one device's whole subtree, and every device's. */
  subtree: (deviceId: string) => `${ROOT}/${deviceId}/#`,
  everyDevice: `${ROOT}/#`,
} as const;

/** What a device may publish: a report, or the answer to one of its commands. */
export type DeviceMessage = { kind: 'report' } | { kind: 'command_result'; commandId: string };

/** Recognises a topic a device may publish to; null for anything else (refused). */
export function parseDevicePublish(deviceId: string, topic: string): DeviceMessage | null {
  const parts = topic.split('/');
  if (parts.length < 4 || parts[0] !== 'farmstead' || parts[1] !== 'devices' || parts[2] !== deviceId) {
    return null;
  }
  if (parts.length === 4 && parts[3] === 'report') return { kind: 'report' };
  const commandId = parts[4];
  if (parts.length === 6 && parts[3] === 'commands' && commandId && parts[5] === 'result') {
    return { kind: 'command_result', commandId };
  }
  return null;
}

/**
 * A device may subscribe to filters inside its own subtree only (`farmstead/devices/{id}/#`,
 * `…/{id}/commands`, `…/{id}/+/result`); wildcards above its own level or shared subscriptions are refused.
 */
export function maySubscribe(deviceId: string, filter: string): boolean {
  const parts = filter.split('/');
  return parts.length >= 4 && parts[0] === 'farmstead' && parts[1] === 'devices' && parts[2] === deviceId;
}

/** Whether a subscription filter delivers the device's commands topic. */
export function coversCommands(deviceId: string, filter: string): boolean {
  const want = topics.commands(deviceId).split('/');
  const have = filter.split('/');
  for (let i = 0; i < have.length; i++) {
    const part = have[i];
    if (part === '#') return true;
    if (i >= want.length) return false;
    if (part !== '+' && part !== want[i]) return false;
  }
  return have.length === want.length;
}
