/**
 * ChirpStack v4 as a network server adapter (network-server.ts). Its HTTP integration (JSON encoding) posts
 * one event per request, named in `?event=`; the members read here are those of ChirpStack's integration
 * events (api/proto/integration/integration.proto, JSON names; the examples of its "Event types" page):
 * `up` (deduplicationId, time, deviceInfo, fPort, fCnt, data, object, rxInfo), `join`, `ack` (queueItemId,
 * acknowledged), `txack` (queueItemId), `status` (batteryLevel) and `location` (the resolved position).
 * `log`, `integration` and any event a later ChirpStack adds are answered 200 and ignored: ChirpStack sends
 * every event to the one URL, and a refusal would only fill its logs. Downlinks go to its REST API's device
 * queue, which answers the queue item id that `ack` and `txack` name.
 */
import { Type } from 'typebox';
import { invalid } from '../../domain/errors.ts';
import type { EncodedDownlink } from './downlink.ts';
import { bestGateway, checker, type NetworkEvent, normalizeEui, timeOf } from './network-events.ts';
import { type DownlinkRequest, type NetworkServer, trimSlash } from './network-server.ts';

/** The events read; every other one is ignored. */
const EVENTS = ['up', 'join', 'ack', 'txack', 'status', 'location'] as const;

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

const Location = Type.Object({
  ...Base,
  deduplicationId: Type.String({ minLength: 1, maxLength: 100 }),
  location: Type.Object({
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
  }),
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
  BaseBody & {
    deduplicationId: string;
    batteryLevel?: number;
    batteryLevelUnavailable?: boolean;
    externalPowerSource?: boolean;
  }
>(Status, 'ChirpStack status event');
const checkLocation = checker<
  BaseBody & { deduplicationId: string; location: { latitude: number; longitude: number } }
>(Location, 'ChirpStack location event');

function ids(info: DeviceInfoBody) {
  return {
    devEui: normalizeEui(info.devEui, 'deviceInfo.devEui'),
    deviceName: info.deviceName ?? null,
    remoteId: null,
    profile: info.deviceProfileName ?? null,
  };
}

function downlinkDevice(info: DeviceInfoBody) {
  return { devEui: normalizeEui(info.devEui, 'deviceInfo.devEui'), remoteId: null, applicationId: null };
}

/** Reads one ChirpStack event; `event` is the `?event=` of the request. */
function parseChirpstack(event: string | undefined, body: unknown, now: number): NetworkEvent {
  if (event === undefined) {
    throw invalid(
      'event',
      `ChirpStack names the event in the query string (?event=up); it reads ${EVENTS.join(', ')} and ignores the others.`,
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
        device: downlinkDevice(ack.deviceInfo),
        result: ack.acknowledged === true ? 'ack' : 'nack',
        at: timeOf(ack.time, 'time', now),
        queueItemId: ack.queueItemId ?? null,
        commandIds: [],
        detail: ack.acknowledged === true ? null : { acknowledged: false, fCntDown: ack.fCntDown ?? null },
      };
    }
    case 'txack': {
      const tx = checkTxAck(body);
      return {
        kind: 'downlink',
        device: downlinkDevice(tx.deviceInfo),
        result: 'sent',
        at: timeOf(tx.time, 'time', now),
        queueItemId: tx.queueItemId ?? null,
        commandIds: [],
        detail: null,
      };
    }
    case 'status': {
      const status = checkStatus(body);
      // A device on mains power has no battery to tell (LoRaWAN's DevStatusAns says 0 for it).
      const battery =
        status.batteryLevelUnavailable === true ||
        status.externalPowerSource === true ||
        status.batteryLevel === undefined
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
    case 'location': {
      const located = checkLocation(body);
      return {
        kind: 'location',
        ...ids(located.deviceInfo),
        dedupKey: `location:${located.deduplicationId}`,
        at: timeOf(located.time, 'time', now),
        lat: located.location.latitude,
        lon: located.location.longitude,
      };
    }
    default:
      return { kind: 'ignored', event };
  }
}

/** ChirpStack v4's REST API: POST {api_url}/api/devices/{devEui}/queue. */
function queueRequest(apiUrl: string, devEui: string, d: EncodedDownlink): DownlinkRequest {
  const queueItem: Record<string, unknown> = { confirmed: d.confirmed, fPort: d.fPort };
  if (d.data !== undefined) queueItem.data = d.data;
  else queueItem.object = d.object;
  return { url: `${trimSlash(apiUrl)}/api/devices/${devEui}/queue`, body: { queueItem } };
}

export const chirpstack: NetworkServer = {
  label: 'ChirpStack',
  apiUrlExample: 'its REST API, e.g. https://chirpstack.example.com:8090',
  parseEvent: ({ event, body }, now) => parseChirpstack(event, body, now),
  // The device queue needs only the DevEUI, which every event carries.
  apiProblem: () => null,
  downlinkRequest: (target, downlink) => ({
    ok: true,
    request: queueRequest(target.apiUrl, target.devEui, downlink),
  }),
  acceptedId: (answer) => {
    const id = (answer as { id?: unknown } | null)?.id;
    return typeof id === 'string' ? id : null;
  },
};
