/**
 * The Things Stack v3 webhooks: every message comes to the one URL, its type told by the member it carries
 * (`uplink_message`, `join_accept`, `downlink_queued|sent|ack|nack|failed`). Members as The Things Stack's
 * data formats document them; empty fields are omitted, so only end_device_ids.dev_eui is required.
 */
import { Type } from 'typebox';
import { invalid } from '../../domain/errors.ts';
import {
  bestGateway,
  checker,
  type DownlinkResult,
  type NetworkEvent,
  normalizeEui,
  timeOf,
} from './network-events.ts';

const Text = (max = 200) => Type.String({ maxLength: max });
const Correlation = Type.Optional(Type.Array(Text(500), { maxItems: 100 }));

const Message = Type.Object({
  end_device_ids: Type.Object({
    dev_eui: Type.String({ minLength: 1, maxLength: 32 }),
    device_id: Type.Optional(Text(100)),
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
  end_device_ids: { dev_eui: string; device_id?: string };
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

export function parseTts(body: unknown, now: number): NetworkEvent {
  const message = checkMessage(body);
  const ids = {
    devEui: normalizeEui(message.end_device_ids.dev_eui, 'end_device_ids.dev_eui'),
    deviceName: message.end_device_ids.device_id ?? null,
    remoteId: message.end_device_ids.device_id ?? null,
    profile: message.uplink_message?.version_ids?.model_id ?? null,
  };
  const up = message.uplink_message;
  if (up) {
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
    return { kind: 'join', ...ids, at: timeOf(message.received_at, 'received_at', now) };
  }
  for (const [member, result] of DOWNLINK_MEMBERS) {
    const d = message[member] as
      | (Correlated & { downlink?: Correlated; error?: Record<string, unknown> })
      | undefined;
    if (!d) continue;
    return {
      kind: 'downlink',
      ...ids,
      result,
      at: timeOf(message.received_at, 'received_at', now),
      queueItemId: null,
      correlationIds: [
        ...(d.correlation_ids ?? []),
        ...(d.downlink?.correlation_ids ?? []),
        ...(message.correlation_ids ?? []),
      ],
      detail: result === 'failed' ? (d.error ?? { error: 'down/failed' }) : null,
    };
  }
  return { kind: 'ignored', event: 'other' };
}
