/**
 * Network server messages as their documentation shows them, for the LoRaWAN integration tests:
 * ChirpStack v4's integration events in JSON (chirpstack.io/docs/chirpstack/integrations/events.html; members
 * from api/proto/integration/integration.proto) and The Things Stack v3 webhook messages
 * (thethingsindustries.com/docs/the-things-stack/concepts/data-formats/). Each builder takes what a test
 * varies (DevEUI, ids, decoded object) and keeps the rest as documented.
 */

export const CHIRPSTACK_DEVICE_INFO = {
  tenantId: '52f14cd4-c6f1-4fbd-8f87-4025e1d49242',
  tenantName: 'ChirpStack',
  applicationId: '17c82e96-be03-4f38-aef3-f83d48582d97',
  applicationName: 'Test application',
  deviceProfileId: '14855bf7-d10d-4aee-b618-ebfcb64dc7ad',
  deviceProfileName: 'Test device-profile',
  deviceName: 'Test device',
  devEui: '0101010101010101',
  tags: { key: 'value' },
};

function deviceInfo(devEui: string, deviceName: string) {
  return { ...CHIRPSTACK_DEVICE_INFO, devEui, deviceName };
}

export function chirpstackUp(
  o: {
    devEui?: string;
    deviceName?: string;
    deduplicationId?: string;
    time?: string;
    object?: Record<string, unknown>;
    rxInfo?: { rssi: number; snr: number }[];
  } = {},
) {
  return {
    deduplicationId: o.deduplicationId ?? '3ac7e3c4-4401-4b8d-9386-a5c902f9202d',
    time: o.time ?? '2022-07-18T09:34:15.775023242+00:00',
    deviceInfo: deviceInfo(o.devEui ?? '0101010101010101', o.deviceName ?? 'Test device'),
    devAddr: '00189440',
    dr: 1,
    fPort: 1,
    fCnt: 10,
    data: 'qg==',
    ...(o.object ? { object: o.object } : {}),
    rxInfo: (o.rxInfo ?? [{ rssi: -36, snr: 10.5 }]).map((g, i) => ({
      gatewayId: `0016c001f153a14${i}`,
      uplinkId: 4217106255 + i,
      rssi: g.rssi,
      snr: g.snr,
      context: 'E3OWOQ==',
      metadata: { region_name: 'eu868', region_common_name: 'EU868' },
    })),
    txInfo: {
      frequency: 867100000,
      modulation: { lora: { bandwidth: 125000, spreadingFactor: 11, codeRate: 'CR_4_5' } },
    },
  };
}

export function chirpstackJoin(o: { devEui?: string; deviceName?: string } = {}) {
  return {
    deduplicationId: 'c9dbe358-2578-4fb7-b295-66b44edc45a6',
    time: '2022-07-18T09:33:28.823500726+00:00',
    deviceInfo: deviceInfo(o.devEui ?? '0101010101010101', o.deviceName ?? 'Test device'),
    devAddr: '00189440',
  };
}

export function chirpstackAck(o: { devEui?: string; queueItemId: string; acknowledged: boolean }) {
  return {
    deduplicationId: '6d8b1cbb-7e3d-4c6e-a6e4-e3b5f2a1e9c0',
    time: '2022-07-18T09:36:12.000000000+00:00',
    deviceInfo: deviceInfo(o.devEui ?? '0101010101010101', 'Test device'),
    queueItemId: o.queueItemId,
    acknowledged: o.acknowledged,
    fCntDown: 7,
  };
}

export function chirpstackTxAck(o: { devEui?: string; queueItemId: string }) {
  return {
    downlinkId: 1806794746,
    time: '2022-07-18T09:35:01.000000000+00:00',
    deviceInfo: deviceInfo(o.devEui ?? '0101010101010101', 'Test device'),
    queueItemId: o.queueItemId,
    fCntDown: 6,
    gatewayId: '0016c001f153a14c',
    txInfo: { frequency: 869525000, power: 14 },
  };
}

export function chirpstackStatus(o: { devEui?: string; batteryLevel: number }) {
  return {
    deduplicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
    time: '2022-07-18T09:40:00.000000000+00:00',
    deviceInfo: deviceInfo(o.devEui ?? '0101010101010101', 'Test device'),
    margin: 6,
    externalPowerSource: false,
    batteryLevel: o.batteryLevel,
  };
}

const TTS_IDS = (devEui: string, deviceId: string) => ({
  device_id: deviceId,
  application_ids: { application_id: 'app1' },
  dev_eui: devEui,
  join_eui: '800000000000000C',
  dev_addr: '00BCB929',
});

export function ttsUplink(
  o: {
    devEui?: string;
    deviceId?: string;
    correlationId?: string;
    receivedAt?: string;
    decoded?: Record<string, unknown>;
    rx?: { rssi?: number; channel_rssi?: number; snr?: number }[];
  } = {},
) {
  const receivedAt = o.receivedAt ?? '2020-02-12T15:15:14.379Z';
  return {
    end_device_ids: TTS_IDS(o.devEui ?? '0004A30B001C0530', o.deviceId ?? 'dev1'),
    correlation_ids: [
      `as:up:${o.correlationId ?? '01E0WXP5Z5BMDXC1EAFH16CS69'}`,
      'gs:conn:01E0WDEC6T5T4XXBNN59D5RC6K',
      'gs:uplink:01E0WXP5SZA0ZH7TBQJ66Z0RCQ',
      'ns:uplink:01E0WXP5TZ2V6Z9BVB8FEMGNVH',
      'rpc:/ttn.lorawan.v3.GsNs/HandleUplink:01E0WXP5T0X6X1FNZ9F4M2HQH5',
    ],
    received_at: '2020-02-12T15:15:14.522741962Z',
    uplink_message: {
      session_key_id: 'AXBSH1Pk6Z0G166...',
      f_port: 1,
      f_cnt: 1,
      frm_payload: 'vu8=',
      decoded_payload: o.decoded ?? { bytes: [190, 239] },
      rx_metadata: (o.rx ?? [{ rssi: -35, channel_rssi: -35, snr: 5.2 }]).map((g, i) => ({
        gateway_ids: { gateway_id: `gtw${i + 1}`, eui: '9C5C8E00001A05C4' },
        time: '2020-02-12T15:15:14.342Z',
        timestamp: 2463457000,
        ...g,
        uplink_token: 'ChIKEAoEZ3R3MRIIn...',
      })),
      settings: {
        data_rate: { lora: { bandwidth: 125000, spreading_factor: 7 } },
        coding_rate: '4/6',
        frequency: '868500000',
      },
      received_at: receivedAt,
      consumed_airtime: '0.056576s',
    },
  };
}

function ttsDownlink(correlation: string[]) {
  return {
    session_key_id: 'AXBSH1Pk6Z0G166...',
    f_port: 1,
    f_cnt: 1,
    frm_payload: 'vu8=',
    confirmed: true,
    priority: 'NORMAL',
    correlation_ids: ['as:downlink:01E0WZGT5Y2TJ8A29RSKGH5XPA', ...correlation],
  };
}

export function ttsDownAck(o: { devEui?: string; deviceId?: string; correlationIds: string[] }) {
  const devEui = o.devEui ?? '0004A30B001C0530';
  return {
    end_device_ids: TTS_IDS(devEui, o.deviceId ?? 'dev1'),
    correlation_ids: ['as:up:01E0WZGT5Y2TJ8A29RSKGH5XPB', 'gs:conn:01E0WDEC6T5T4XXBNN59D5RC6K'],
    received_at: '2020-02-17T10:32:24.263365188Z',
    downlink_ack: ttsDownlink(o.correlationIds),
  };
}

export function ttsDownSent(o: { devEui?: string; deviceId?: string; correlationIds: string[] }) {
  const devEui = o.devEui ?? '0004A30B001C0530';
  return {
    end_device_ids: TTS_IDS(devEui, o.deviceId ?? 'dev1'),
    correlation_ids: ['as:downlink:01E0WZGT5Y2TJ8A29RSKGH5XPA'],
    received_at: '2020-02-17T10:30:01.000Z',
    downlink_sent: ttsDownlink(o.correlationIds),
  };
}

export function ttsDownNack(o: { devEui?: string; deviceId?: string; correlationIds: string[] }) {
  const devEui = o.devEui ?? '0004A30B001C0530';
  return {
    end_device_ids: TTS_IDS(devEui, o.deviceId ?? 'dev1'),
    correlation_ids: ['as:up:01E0WZGT5Y2TJ8A29RSKGH5XPC'],
    received_at: '2020-02-17T10:33:00.000Z',
    downlink_nack: ttsDownlink(o.correlationIds),
  };
}

export function ttsDownQueued(o: { devEui?: string; deviceId?: string; correlationIds: string[] }) {
  const devEui = o.devEui ?? '0004A30B001C0530';
  return {
    end_device_ids: TTS_IDS(devEui, o.deviceId ?? 'dev1'),
    correlation_ids: ['as:downlink:01E0WZGT5Y2TJ8A29RSKGH5XPA'],
    received_at: '2020-02-17T10:29:00.000Z',
    downlink_queued: ttsDownlink(o.correlationIds),
  };
}

export function ttsDownFailed(o: { devEui?: string; deviceId?: string; correlationIds: string[] }) {
  const devEui = o.devEui ?? '0004A30B001C0530';
  return {
    end_device_ids: TTS_IDS(devEui, o.deviceId ?? 'dev1'),
    correlation_ids: ['as:downlink:01E0WZGT5Y2TJ8A29RSKGH5XPA'],
    received_at: '2020-02-17T10:32:24.263365188Z',
    downlink_failed: {
      downlink: ttsDownlink(o.correlationIds),
      error: {
        namespace: 'pkg/networkserver',
        name: 'application_downlink_too_long',
        message_format: 'application downlink payload is too long',
        correlation_id: '1d2f0c5e1b9b4c8a9e6b1a2f3c4d5e6f',
        code: 3,
      },
    },
  };
}
