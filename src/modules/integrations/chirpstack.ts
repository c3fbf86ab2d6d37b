/**
 * ChirpStack v4's HTTP integration (JSON encoding): one POST per event, the event named in `?event=`. The
 * members read here are those of ChirpStack's integration events (api/proto/integration/integration.proto,
 * JSON names): `up` (deduplicationId, time, deviceInfo, fPort, fCnt, data, object, rxInfo), `join`,
 * `ack` (queueItemId, acknowledged), `txack` (queueItemId), `status` (batteryLevel) and `log`.
 */
import { Type } from 'typebox';
import { invalid } from '../../domain/errors.ts';
import { bestGateway, checker, type NetworkEvent, normalizeEui, timeOf } from './network-events.ts';

export const CHIRPSTACK_EVENTS = ['up', 'join', 'ack', 'txack', 'status', 'log'] as const;
export type ChirpstackEvent = (typeof CHIRPSTACK_EVENTS)[number];

const Text = (max = 200) => Type.String({ maxLength: max });

const DeviceInfo = Type.Object({
  devEui: Type.String({ minLength: 1, maxLength: 32 }),
  deviceName: Type.Optional(Text()),
  deviceProfileName: Type.Optional(Text()),
});

const Base = { time: Type.Optional(Text(64)), deviceInfo: DeviceInfo };

const Up = Type.Object({
  ...Base,
  deduplicationId: Type.String({ minLength: 1, maxLength: 100 }),
  fPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 255 })),
  fCnt: Type.Optional(Type.Integer({ minimum: 0 })),
  data: Type.Optional(Type.String()),
  object: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  rxInfo: Type.Optional(
    Type.Array(Type.Object({ rssi: Type.Optional(Type.Number()), snr: Type.Optional(Type.Number()) })),
  ),
});
const Join = Type.Object({ ...Base });
const Ack = Type.Object({
  ...Base,
  queueItemId: Type.Optional(Text(100)),
  acknowledged: Type.Optional(Type.Boolean()),
  fCntDown: Type.Optional(Type.Integer()),
});
const TxAck = Type.Object({ ...Base, queueItemId: Type.Optional(Text(100)) });
const Status = Type.Object({
  ...Base,
  deduplicationId: Type.String({ minLength: 1, maxLength: 100 }),
  batteryLevel: Type.Optional(Type.Number()),
  batteryLevelUnavailable: Type.Optional(Type.Boolean()),
  externalPowerSource: Type.Optional(Type.Boolean()),
});

type DeviceInfoBody = { devEui: string; deviceName?: string; deviceProfileName?: string };
type BaseBody = { time?: string; deviceInfo: DeviceInfoBody };

const checkUp = checker<
  BaseBody & {
    deduplicationId: string;
    fPort?: number;
    fCnt?: number;
    object?: Record<string, unknown>;
    rxInfo?: { rssi?: number; snr?: number }[];
  }
>(Up, 'ChirpStack up event');
const checkJoin = checker<BaseBody>(Join, 'ChirpStack join event');
const checkAck = checker<BaseBody & { queueItemId?: string; acknowledged?: boolean; fCntDown?: number }>(
  Ack,
  'ChirpStack ack event',
);
const checkTxAck = checker<BaseBody & { queueItemId?: string }>(TxAck, 'ChirpStack txack event');
const checkStatus = checker<
  BaseBody & { deduplicationId: string; batteryLevel?: number; batteryLevelUnavailable?: boolean }
>(Status, 'ChirpStack status event');

function ids(info: DeviceInfoBody) {
  return {
    devEui: normalizeEui(info.devEui, 'deviceInfo.devEui'),
    deviceName: info.deviceName ?? null,
    remoteId: null,
    profile: info.deviceProfileName ?? null,
  };
}

/** Reads one ChirpStack event; `event` is the `?event=` of the request. */
export function parseChirpstack(event: string | undefined, body: unknown, now: number): NetworkEvent {
  if (event === undefined) {
    throw invalid(
      'event',
      `ChirpStack names the event in the query string (?event=up); one of ${CHIRPSTACK_EVENTS.join(', ')}.`,
    );
  }
  switch (event) {
    case 'up': {
      const up = checkUp(body);
      return {
        kind: 'uplink',
        ...ids(up.deviceInfo),
        dedupKey: `up:${up.deduplicationId}`,
        at: timeOf(up.time, 'time', now),
        fPort: up.fPort ?? null,
        fCnt: up.fCnt ?? null,
        decoded: up.object ?? null,
        ...bestGateway(up.rxInfo ?? []),
      };
    }
    case 'join': {
      const join = checkJoin(body);
      return { kind: 'join', ...ids(join.deviceInfo), at: timeOf(join.time, 'time', now) };
    }
    case 'ack': {
      const ack = checkAck(body);
      return {
        kind: 'downlink',
        ...ids(ack.deviceInfo),
        result: ack.acknowledged === true ? 'ack' : 'nack',
        at: timeOf(ack.time, 'time', now),
        queueItemId: ack.queueItemId ?? null,
        correlationIds: [],
        detail: ack.acknowledged === true ? null : { acknowledged: false, fCntDown: ack.fCntDown ?? null },
      };
    }
    case 'txack': {
      const tx = checkTxAck(body);
      return {
        kind: 'downlink',
        ...ids(tx.deviceInfo),
        result: 'sent',
        at: timeOf(tx.time, 'time', now),
        queueItemId: tx.queueItemId ?? null,
        correlationIds: [],
        detail: null,
      };
    }
    case 'status': {
      const status = checkStatus(body);
      const battery =
        status.batteryLevelUnavailable === true || status.batteryLevel === undefined
          ? null
          : Math.min(100, Math.max(0, status.batteryLevel));
      return {
        kind: 'status',
        ...ids(status.deviceInfo),
        dedupKey: `status:${status.deduplicationId}`,
        at: timeOf(status.time, 'time', now),
        battery,
      };
    }
    case 'log':
      return { kind: 'ignored', event: 'log' };
    default:
      throw invalid(
        'event',
        `event "${event}" is not a ChirpStack event; one of ${CHIRPSTACK_EVENTS.join(', ')}.`,
      );
  }
}
