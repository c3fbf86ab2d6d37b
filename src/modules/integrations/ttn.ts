/**
 * The Things Stack v3 as a network server adapter (network-server.ts). Its webhook posts every message to
 * the one URL, the type told by the member it carries (`uplink_message`, `join_accept`,
 * `downlink_queued|sent|ack|nack|failed`). Members as its "Data Formats" page documents them; empty fields
 * are omitted, so almost nothing is required: uplinks and joins need end_device_ids.dev_eui (how a device
 * is matched), downlink messages need nothing but the correlation ids, because the documented
 * `downlink_failed` carries only device_id and application_ids. Downlinks are pushed through the webhook's
 * own API, and carry our command's id as a correlation id, which every later message about them repeats.
 */
import { Type } from 'typebox';
import { invalid } from '../../domain/errors.ts';
import type { EncodedDownlink } from './downlink.ts';
import {
  bestGateway,
  checker,
  type DownlinkResult,
  type NetworkEvent,
  normalizeEui,
  timeOf,
} from './network-events.ts';
import { type DownlinkRequest, type NetworkServer, trimSlash } from './network-server.ts';

const Text = (max = 200) => Type.String({ maxLength: max });
const Correlation = Type.Optional(Type.Array(Text(500), { maxItems: 100 }));

const Message = Type.Object({
  end_device_ids: Type.Object({
    dev_eui: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    device_id: Type.Optional(Text(100)),
    application_ids: Type.Optional(Type.Object({ application_id: Type.Optional(Text(100)) })),
  }),
  correlation_ids: Correlation,
  received_at: Type.Optional(Text(64)),
  uplink_message: Type.Optional(
    Type.Object({
      f_port: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
      f_cnt: Type.Optional(Type.Integer({ minimum: 0 })),
      frm_payload: Type.Optional(Type.String()),
      decoded_payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      rx_metadata: Type.Optional(
        Type.Array(
          Type.Object({
            rssi: Type.Optional(Type.Number()),
            channel_rssi: Type.Optional(Type.Number()),
            snr: Type.Optional(Type.Number()),
          }),
        ),
      ),
      received_at: Type.Optional(Text(64)),
      version_ids: Type.Optional(Type.Object({ model_id: Type.Optional(Text()) })),
    }),
  ),
  join_accept: Type.Optional(Type.Object({ received_at: Type.Optional(Text(64)) })),
  downlink_queued: Type.Optional(Type.Object({ correlation_ids: Correlation })),
  downlink_sent: Type.Optional(Type.Object({ correlation_ids: Correlation })),
  downlink_ack: Type.Optional(Type.Object({ correlation_ids: Correlation })),
  downlink_nack: Type.Optional(Type.Object({ correlation_ids: Correlation })),
  downlink_failed: Type.Optional(
    Type.Object({
      downlink: Type.Optional(Type.Object({ correlation_ids: Correlation })),
      error: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});

type Correlated = { correlation_ids?: string[] };
interface TtsMessage {
  end_device_ids: { dev_eui?: string; device_id?: string; application_ids?: { application_id?: string } };
  correlation_ids?: string[];
  received_at?: string;
  uplink_message?: {
    f_port?: number;
    f_cnt?: number;
    decoded_payload?: Record<string, unknown>;
    rx_metadata?: { rssi?: number; channel_rssi?: number; snr?: number }[];
    received_at?: string;
    version_ids?: { model_id?: string };
  };
  join_accept?: { received_at?: string };
  downlink_queued?: Correlated;
  downlink_sent?: Correlated;
  downlink_ack?: Correlated;
  downlink_nack?: Correlated;
  downlink_failed?: { downlink?: Correlated; error?: Record<string, unknown> };
}

const checkMessage = checker<TtsMessage>(Message, 'The Things Stack message');

const DOWNLINK_MEMBERS: [keyof TtsMessage, DownlinkResult][] = [
  ['downlink_queued', 'queued'],
  ['downlink_sent', 'sent'],
  ['downlink_ack', 'ack'],
  ['downlink_nack', 'nack'],
  ['downlink_failed', 'failed'],
];

/** The uplink's key: The Things Stack's `as:up:` correlation id, else every id of the message. */
function uplinkKey(message: TtsMessage, devEui: string): string {
  const ids = message.correlation_ids ?? [];
  const up = ids.find((id) => id.startsWith('as:up:'));
  if (up) return `up:${up}`;
  if (ids.length > 0) return `up:${[...ids].sort().join(',')}`.slice(0, 1000);
  throw invalid(
    'correlation_ids',
    `The uplink of ${devEui} has no correlation_ids; The Things Stack always sends them, and they tell a retried uplink from a new one.`,
  );
}

/** The prefix of the correlation id our downlinks carry: `farmstead:command:<command id>`. */
const COMMAND_CORRELATION = 'farmstead:command:';
/** The correlation id The Things Stack's Application Server gives each downlink it queues. */
const SERVER_DOWNLINK_CORRELATION = 'as:downlink:';

function deviceIds(message: TtsMessage) {
  const devEui = message.end_device_ids.dev_eui;
  if (devEui === undefined) {
    throw invalid(
      'end_device_ids.dev_eui',
      'end_device_ids.dev_eui is required in an uplink or join: it is how the device is found.',
    );
  }
  return {
    devEui: normalizeEui(devEui, 'end_device_ids.dev_eui'),
    deviceName: message.end_device_ids.device_id ?? null,
    remoteId: message.end_device_ids.device_id ?? null,
    profile: message.uplink_message?.version_ids?.model_id ?? null,
  };
}

function parseTts(body: unknown, now: number): NetworkEvent {
  const message = checkMessage(body);
  const up = message.uplink_message;
  if (up) {
    const ids = deviceIds(message);
    return {
      kind: 'uplink',
      ...ids,
      dedupKey: uplinkKey(message, ids.devEui),
      at: timeOf(up.received_at ?? message.received_at, 'uplink_message.received_at', now),
      fPort: up.f_port ?? null,
      fCnt: up.f_cnt ?? null,
      decoded: up.decoded_payload ?? null,
      ...bestGateway((up.rx_metadata ?? []).map((g) => ({ rssi: g.rssi ?? g.channel_rssi, snr: g.snr }))),
    };
  }
  if (message.join_accept) {
    return { kind: 'join', ...deviceIds(message), at: timeOf(message.received_at, 'received_at', now) };
  }
  for (const [member, result] of DOWNLINK_MEMBERS) {
    const d = message[member] as
      | (Correlated & { downlink?: Correlated; error?: Record<string, unknown> })
      | undefined;
    if (!d) continue;
    const eui = message.end_device_ids.dev_eui;
    const correlationIds = [
      ...(d.correlation_ids ?? []),
      ...(d.downlink?.correlation_ids ?? []),
      ...(message.correlation_ids ?? []),
    ];
    return {
      kind: 'downlink',
      device: {
        devEui: eui === undefined ? null : normalizeEui(eui, 'end_device_ids.dev_eui'),
        remoteId: message.end_device_ids.device_id ?? null,
        applicationId: message.end_device_ids.application_ids?.application_id ?? null,
      },
      result,
      // `downlink_failed` carries no received_at: it is dated when it arrives.
      at: timeOf(message.received_at, 'received_at', now),
      queueItemId: null,
      commandIds: correlationIds
        .filter((id) => id.startsWith(COMMAND_CORRELATION))
        .map((id) => id.slice(COMMAND_CORRELATION.length)),
      // The Application Server names every downlink it took (`as:downlink:…`): one without ours is another's.
      namesOther:
        !correlationIds.some((id) => id.startsWith(COMMAND_CORRELATION)) &&
        correlationIds.some((id) => id.startsWith(SERVER_DOWNLINK_CORRELATION)),
      detail: result === 'failed' ? (d.error ?? { error: 'down/failed' }) : null,
    };
  }
  return { kind: 'ignored', event: 'other' };
}

/** …/api/v3/as/applications/{app}/webhooks/{webhook}/devices/{device_id}/down/push (the webhook's own API). */
function pushRequest(
  apiUrl: string,
  ids: { applicationId: string; webhookId: string; deviceId: string },
  d: EncodedDownlink,
  commandId: string,
): DownlinkRequest {
  const downlink: Record<string, unknown> = { f_port: d.fPort, confirmed: d.confirmed };
  if (d.data !== undefined) downlink.frm_payload = d.data;
  else downlink.decoded_payload = d.object;
  downlink.correlation_ids = [`${COMMAND_CORRELATION}${commandId}`];
  const path = [
    'api/v3/as/applications',
    ids.applicationId,
    'webhooks',
    ids.webhookId,
    'devices',
    ids.deviceId,
  ]
    .map((p, i) => (i === 0 ? p : encodeURIComponent(p)))
    .join('/');
  return { url: `${trimSlash(apiUrl)}/${path}/down/push`, body: { downlinks: [downlink] } };
}

export const theThingsStack: NetworkServer = {
  label: 'The Things Stack',
  apiUrlExample: 'e.g. https://eu1.cloud.thethings.network',
  parseEvent: ({ body }, now) => parseTts(body, now),
  apiProblem: (settings) => {
    if (settings.api_url === null) return null;
    if (!settings.application_id) {
      return {
        param: 'application_id',
        message: 'A ttn integration with api_url needs application_id for downlinks.',
      };
    }
    if (!settings.webhook_id) {
      return {
        param: 'webhook_id',
        message: 'A ttn integration with api_url needs webhook_id for downlinks.',
      };
    }
    return null;
  },
  downlinkRequest: (target, downlink, commandId) => {
    if (!target.applicationId || !target.webhookId) {
      return { ok: false, error: 'The integration needs application_id and webhook_id to push downlinks.' };
    }
    if (!target.remoteId) {
      return {
        ok: false,
        error:
          "The Things Stack's device_id of this device is not known yet: it is learnt from its first uplink, or set remote_id (PUT /v1/devices/{id}/lorawan).",
      };
    }
    const ids = {
      applicationId: target.applicationId,
      webhookId: target.webhookId,
      deviceId: target.remoteId,
    };
    return { ok: true, request: pushRequest(target.apiUrl, ids, downlink, commandId) };
  },
  // The push answers an empty object: later messages find the command by its correlation id.
  acceptedId: () => null,
};
