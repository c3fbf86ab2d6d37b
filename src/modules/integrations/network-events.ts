/**
 * What a network server told us, whichever server it was: each adapter (network-servers.ts) turns its own
 * JSON into these. Bodies are checked with Ajv against the few members we read (everything else a server sends
 * is left alone, and The Things Stack omits empty members, so almost everything is optional); a body that
 * fails is a 400 naming the member.
 */
import type { ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { AppError, invalid } from '../../domain/errors.ts';
import { describeAjvError, firstIssue, makeAjv } from '../../lib/ajv.ts';
import { lazily } from '../../lib/compile-lazily.ts';
import { parseIso } from '../../lib/time.ts';

interface DeviceIds {
  /** 16 lower-case hex digits. */
  devEui: string;
  deviceName: string | null;
  /** The server's own device id (The Things Stack's device_id). */
  remoteId: string | null;
  /** ChirpStack's device profile name, The Things Stack's model id: what integration defaults match. */
  profile: string | null;
}

export type DownlinkResult = 'queued' | 'sent' | 'ack' | 'nack' | 'failed';

export type NetworkEvent =
  | ({
      kind: 'uplink';
      /** The server's id for this uplink (unique per device): a retried or duplicated uplink repeats it. */
      dedupKey: string;
      at: number;
      fPort: number | null;
      fCnt: number | null;
      decoded: Record<string, unknown> | null;
      rssi: number | null;
      snr: number | null;
    } & DeviceIds)
  | ({ kind: 'join'; at: number } & DeviceIds)
  | ({ kind: 'status'; dedupKey: string; at: number; battery: number | null } & DeviceIds)
  /** The device's position as the network server resolved it (ChirpStack `location`). */
  | ({ kind: 'location'; dedupKey: string; at: number; lat: number; lon: number } & DeviceIds)
  | {
      kind: 'downlink';
      result: DownlinkResult;
      at: number;
      /**
       * The device, as far as the message names it: The Things Stack's downlink messages may carry only its
       * device_id and application id (no DevEUI), so the command is found by `commandIds` or `queueItemId`.
       */
      device: { devEui: string | null; remoteId: string | null; applicationId: string | null };
      /** ChirpStack's queue item id. */
      queueItemId: string | null;
      /** Our commands the message names (the correlation ids our downlinks carry through the server). */
      commandIds: string[];
      /** The message names its downlink by the server's own id and none of ours: another downlink's event. */
      namesOther?: boolean;
      /** The server's words about a failure. */
      detail: Record<string, unknown> | null;
    }
  | { kind: 'ignored'; event: string };

const ajv = makeAjv({ coerceTypes: false });

/**
 * A checker for one event body: the schema's Ajv validator with the Error object on failure. The validator
 * is compiled on the first body it checks (`lib/compile-lazily.ts`): most servers never hear from a network
 * server, and compiling every event's validator at start was about a tenth of loading the service.
 */
export function checker<T>(schema: TSchema, what: string): (body: unknown) => T {
  const validateOnce = lazily((): ValidateFunction => ajv.compile(schema));
  return (body) => {
    const validate = validateOnce();
    if (validate(body)) return body as T;
    const issue = firstIssue(validate.errors);
    if (!issue) throw new AppError('invalid_request', `The ${what} body is not valid.`);
    const { param, message } = describeAjvError(issue, 'member', 'body');
    throw new AppError('invalid_request', `Not a valid ${what}: ${message}`, { param });
  };
}

/** A DevEUI as 16 lower-case hex digits (network servers send upper or lower case). */
export function normalizeEui(text: string, param: string): string {
  const eui = text.trim().toLowerCase();
  if (!/^[0-9a-f]{16}$/.test(eui)) throw invalid(param, `${param} must be a DevEUI of 16 hex digits.`);
  return eui;
}

/** A server's time as epoch ms; `fallback` when absent. Nanosecond fractions are cut to milliseconds. */
export function timeOf(text: string | undefined, param: string, fallback: number): number {
  if (text === undefined) return fallback;
  const trimmed = text.replace(/(\.\d{3})\d+/, '$1');
  const at = parseIso(trimmed);
  if (at === null) throw invalid(param, `${param} must be an ISO 8601 date-time.`);
  return at;
}

/** The gateway that heard the uplink best (highest RSSI), with its SNR. */
export function bestGateway(gateways: readonly { rssi?: number | undefined; snr?: number | undefined }[]): {
  rssi: number | null;
  snr: number | null;
} {
  let best: { rssi?: number | undefined; snr?: number | undefined } | undefined;
  for (const g of gateways) {
    if (g.rssi === undefined && g.snr === undefined) continue;
    if (!best || (g.rssi ?? -Infinity) > (best.rssi ?? -Infinity)) best = g;
  }
  return { rssi: best?.rssi ?? null, snr: best?.snr ?? null };
}
