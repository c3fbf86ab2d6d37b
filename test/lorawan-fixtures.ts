/**
 * Network server messages exactly as their documentation shows them, for the LoRaWAN integration tests. Each
 * upper-case constant below is an upstream example's text, verbatim (copied, never edited), with the
 * document and section it comes from; the builders at the end derive what a test varies (a DevEUI we
 * registered, the deduplicationId, the decoded object, our correlation id) from the parsed example in code,
 * and say what they change. Everything they do not change is the documented message.
 */

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`up` - Uplink event": its JSON example. */
export const CHIRPSTACK_UP = `{
	"deduplicationId": "3ac7e3c4-4401-4b8d-9386-a5c902f9202d",
	"time": "2022-07-18T09:34:15.775023242+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"devAddr": "00189440",
	"dr": 1,
	"fPort": 1,
	"data": "qg==",
	"rxInfo": [{
		"gatewayId": "0016c001f153a14c",
		"uplinkId": 4217106255,
		"rssi": -36,
		"snr": 10.5,
		"context": "E3OWOQ==",
		"metadata": {
			"region_name": "eu868",
			"region_common_name": "EU868"
		}
	}],
	"txInfo": {
		"frequency": 867100000,
		"modulation": {
			"lora": {
				"bandwidth": 125000,
				"spreadingFactor": 11,
				"codeRate": "CR_4_5"
			}
		}
	}
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`status` - Margin and battery status": its JSON example. */
export const CHIRPSTACK_STATUS = `{
	"deduplicationId": "bf2a9746-1c8b-49be-a92e-f0b89c8534e4",
	"time": "2022-07-18T09:35:06.927172638+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101"
	},
	"margin": 10,
	"batteryLevel": 88.3
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`join` - Device join event": its JSON example. */
export const CHIRPSTACK_JOIN = `{
	"deduplicationId": "c9dbe358-2578-4fb7-b295-66b44edc45a6",
	"time": "2022-07-18T09:33:28.823500726+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"devAddr": "00189440"
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`ack` - Confirmed downlink (n)ack": its JSON example. */
export const CHIRPSTACK_ACK = `{
	"deduplicationId": "856a03e7-80f6-4c26-b971-9dcb34a59c2e",
	"time": "2022-07-18T09:38:49.235700766+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"queueItemId": "1bbcab1d-6ec6-4136-b3f5-d63be1dc08de",
	"acknowledged": true,
	"fCntDown": 3
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`txack` - Downlink transmission ack": its JSON example. */
export const CHIRPSTACK_TXACK = `{
	"downlinkId": 3461958127,
	"time": "2022-07-18T09:37:48.929184085+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"queueItemId": "42cb6459-a640-46ec-9623-bdff39dc4736",
	"fCntDown": 2,
	"gatewayId": "0016c001f153a14c",
	"txInfo": {
		"frequency": 867900000,
		"power": 14,
		"modulation": {
			"lora": {
				"bandwidth": 125000,
				"spreadingFactor": 7,
				"codeRate": "CR_4_5",
				"polarizationInversion": true
			}
		},
		"timing": {
			"delay": {
				"delay": "1s"
			}
		},
		"context": "ICYVGw=="
	}
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`log` - Log (or error) event": its JSON example. */
export const CHIRPSTACK_LOG = `{
	"time": "2022-07-18T09:39:57.311414029+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"level": "ERROR",
	"code": "UPLINK_MIC",
	"description": "MIC of join-request is invalid, make sure keys are correct",
	"context": {
		"deduplication_id": "4e91db13-5ce3-4c8c-ab0f-dfc626cf0771"
	}
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`location` - Location event": its JSON example. */
export const CHIRPSTACK_LOCATION = `{
	"deduplicationId": "63d870b9-b769-4d88-8b33-8e43f58851a7",
	"time": "2022-07-18T09:55:11.059481003+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "Test device",
		"devEui": "0101010101010101",
		"tags": {
			"key": "value"
		}
	},
	"location": {
		"latitude": 37.344214,
		"longitude": -8.839375,
		"altitude": 2
	}
}`;

/** ChirpStack documentation, "Event types" (chirpstack/chirpstack-docs, src/chirpstack/integrations/events.md; chirpstack.io/docs/chirpstack/integrations/events.html), section "`integration` - Integration event": its JSON example. */
export const CHIRPSTACK_INTEGRATION = `{
	"deduplicationId": "39c68646-57f7-4973-8ac8-48839b5714d6",
	"time": "2022-07-18T10:02:15.812284501+00:00",
	"deviceInfo": {
		"tenantId": "52f14cd4-c6f1-4fbd-8f87-4025e1d49242",
		"tenantName": "ChirpStack",
		"applicationId": "17c82e96-be03-4f38-aef3-f83d48582d97",
		"applicationName": "Test application",
		"deviceProfileId": "14855bf7-d10d-4aee-b618-ebfcb64dc7ad",
		"deviceProfileName": "Test device-profile",
		"deviceName": "LR1110",
		"devEui": "0016c001f000175a",
		"tags": {
			"key": "value"
		}
	},
	"integrationName": "loracloud",
	"eventType": "modem_UplinkResponse",
	"object": {
		"stream_records": [
			[43.0, "0815a7f492bf248575caf492bf248725c874acb96799de"]
		],
		"dnlink": null,
		"pending_requests": {
			"id": 10.0,
			"requests": [],
			"upcount": 0.0,
			"updelay": 32.0
		},
		"fulfilled_requests": [],
		"fports": {
			"wifiport": 197.0,
			"gnssport": 198.0,
			"dmport": 199.0,
			"streamport": 199.0
		},
		"log_messages": [],
		"info_fields": {
			"voltage": {
				"timestamp": 1648481184.757,
				"value": 3.04
			},
			"charge": {
				"value": 0.0,
				"timestamp": 1648481184.757
			},
			"interval": null,
			"rxtime": null,
			"appstatus": null,
			"joineui": null,
			"streampar": null,
			"uptime": null,
			"firmware": {
				"value": {
					"fwtotal": 65535.0,
					"fwcrc": "c66f3ebe",
					"fwcompleted": 0.0
				},
				"timestamp": 1648481184.757
			},
			"adrmode": null,
			"deveui": null,
			"signal": null,
			"rstcount": {
				"timestamp": 1648481184.757,
				"value": 300.0
			},
			"chipeui": null,
			"crashlog": null,
			"status": null,
			"region": null,
			"session": {
				"value": 304.0,
				"timestamp": 1648481184.757
			},
			"rfu": null,
			"temp": {
				"timestamp": 1648481184.757,
				"value": 25.0
			},
			"alcsync": {
				"value": {
					"token": 0.0,
					"time": 19.0
				},
				"timestamp": 1648481177.033
			}
		},
		"position_solution": null,
		"file": null
	}
}`;

/** The Things Stack documentation, "Data Formats" (TheThingsIndustries/lorawan-stack-docs, doc/content/integrations/data-formats/_index.md; thethingsindustries.com/docs/integrations/data-formats/), section "Join-accept Messages", "Join message example". */
export const TTS_JOIN = `{
  "end_device_ids": {
    "device_id": "dev1",
    "application_ids": {
      "application_id": "app1"
    },
    "dev_eui": "0004A30B001C0530",
    "join_eui": "800000000000000C",
    "dev_addr": "01497ECC"
  },
  "correlation_ids": [
    "as:up:01E191YN5F2HMBQCBCVRF731VY",
    "gs:conn:01E191S6ZEWB630NTR45K5QN4Q",
    "gs:uplink:01E191YMZ2S7ZRTEGATVE2S3HH",
    "ns:uplink:01E191YMZ2J64K6FEW5F0WE7TQ",
    "rpc:/ttn.lorawan.v3.GsNs/HandleUplink:01E191YMZ2KK3TJYG5C4XZP8JK"
  ],
  "received_at" : "2020-02-17T07:49:09.935284891Z",
  "join_accept" : {
    "session_key_id" : "AXBSH1Pk6Z0G166RlH16CQ==",
    "received_at" : "2020-02-17T07:49:09.736532315Z",
    "attributes": {
      "key1": "value1",
      "key2": "value2"
    }
  }
}`;

/** The Things Stack documentation, "Data Formats" (TheThingsIndustries/lorawan-stack-docs, doc/content/integrations/data-formats/_index.md; thethingsindustries.com/docs/integrations/data-formats/), section "Uplink Messages", "Uplink message example". */
export const TTS_UPLINK = `{
  "end_device_ids": {
    "device_id": "dev1",
    "application_ids": {
      "application_id": "app1"
    },
    "dev_eui": "0004A30B001C0530",
    "join_eui": "800000000000000C",
    "dev_addr": "00BCB929"
  },
  "correlation_ids": [
    "as:up:01E0WZGT6Y7657CPFPE5WEYDSQ",
    "gs:conn:01E0WDEC6T5T4XXBAX7S1VMFKE",
    "gs:uplink:01E0WZGSZWT07NE5TS2APTV1Z9",
    "ns:uplink:01E0WZGSZXZXZS8RFAWZX0F2FY",
    "rpc:/ttn.lorawan.v3.GsNs/HandleUplink:01E0WZGSZXGE1KS577PFBWRJEE"
  ],
  "received_at": "2020-02-12T15:15:46.014773143Z",
  "uplink_message": {
    "session_key_id": "AXA50tHUGUucuzS/bCGMNw==",
    "f_cnt": 1,
    "frm_payload": "gkHe",
    "decoded_payload": {
      "temperature": 1.0,
      "luminosity": 0.64
    },
    "rx_metadata": [
      {
        "gateway_ids": {
          "gateway_id": "gtw1",
          "eui": "9C5C8E00001A05C4"
        },
        "time": "2020-02-12T15:15:45.787Z",
        "timestamp": 2463457000,
        "rssi": -35,
        "channel_rssi": -35,
        "snr": 5,
        "uplink_token": "ChIKEAoEZ3R3MRIInFyOAAAaBcQQ6L3Vlgk=",
        "channel_index": 2
      }
    ],
    "settings": {
      "data_rate": {
        "lora": {
          "bandwidth": 125000,
          "spreading_factor": 7
        }
      },
      "coding_rate": "4/6",
      "frequency": "868300000",
      "timestamp": 2463457000,
      "time": "2020-02-12T15:15:45.787Z"
    },
    "consumed_airtime": "0.056576s",
    "locations": {
      "user": {
        "latitude": 37.97155556731436,
        "longitude": 23.72678801175413,
        "altitude": 10,
        "source": "SOURCE_REGISTRY"
      }
    },
    "version_ids": {
      "brand_id": "the-things-products",
      "model_id": "the-things-uno",
      "hardware_version": "1.0",
      "firmware_version": "quickstart",
      "band_id": "US_902_928"
    },
    "network_ids": {
      "net_id": "000013",
      "tenant_id": "tenant1",
      "cluster_id": "nam1"
    },
    "attributes": {
      "key1": "value1",
      "key2": "value2"
    }
    "received_at" : "2020-02-12T15:15:45.789585559Z"
  }
}`;

/** The Things Stack documentation, "Data Formats" (TheThingsIndustries/lorawan-stack-docs, doc/content/integrations/data-formats/_index.md; thethingsindustries.com/docs/integrations/data-formats/), section "Downlink Events Messages", "Downlink event message example". */
export const TTS_DOWNLINK_EVENT = `{
  "end_device_ids": {
    "device_id": "dev1",
    "application_ids": {
      "application_id": "app1"
    },
    "dev_eui": "0004A30B001C0530",
    "join_eui": "800000000000000C",
    "dev_addr": "00C30DFA"
  },
  "correlation_ids": [
    "as:downlink:01E19B99501X84X6CV471TVSZ1",
    "as:up:01E19B9J8ED6HZW5CC41KPGHVD",
    "gs:conn:01E191S6ZEWB630NTR45K5QN4Q",
    "gs:uplink:01E19B9J17SRJWJ4GV3MCJHNWZ",
    "ns:uplink:01E19B9J1CG3QNWS5M8G3DBMPN",
    "rpc:/ttn.lorawan.v3.GsNs/HandleUplink:01E19B9J17K85MJ1MXPHTW0410"
  ],
  "received_at": "2020-02-17T10:32:24.590413417Z",
  "downlink_ack": {
    "session_key_id": "AXBSp8v2brG0jqkri+sIkw==",
    "f_port": 15,
    "f_cnt": 1,
    "frm_payload": "vu8=",
    "confirmed": true,
    "priority": "NORMAL",
    "correlation_ids": ["as:downlink:01E19B99501X84X6CV471TVSZ1"]
  }
}`;

/** The Things Stack documentation, "Data Formats" (TheThingsIndustries/lorawan-stack-docs, doc/content/integrations/data-formats/_index.md; thethingsindustries.com/docs/integrations/data-formats/), section "Downlink Events Messages", "Downlink failed event message example". */
export const TTS_DOWNLINK_FAILED = `{
  "end_device_ids": {
    "device_id": "dev1",
    "application_ids": {
      "application_id": "app1"
    }
  },
  "correlation_ids": ["as:downlink:01E19Z5W3BZBG7CXSJE9C0A3CE"],
  "downlink_failed": {
    "downlink": {
      "f_port": 15,
      "frm_payload": "vu8=",
      "confirmed": true,
      "priority": "NORMAL",
      "correlation_ids": ["as:downlink:01E19Z5W3BZBG7CXSJE9C0A3CE"]
    },
    "error": {
      "namespace": "pkg/networkserver",
      "name": "application_downlink_too_long",
      "message_format": "application downlink payload is too long",
      "correlation_id": "2e7f786912e946e597894e381d0ad7b0",
      "code": 3
    }
  }
}`;

// ---- derived messages: the parsed example, with only what a test varies changed (named at each builder)

type Json = Record<string, unknown>;
const parse = (text: string): Json => JSON.parse(text) as Json;

/**
 * The Things Stack's uplink example misses the comma before its last member (`"attributes": {…}` then
 * `"received_at"`): a typo in the document, since The Things Stack sends valid JSON. The comma is put back
 * here, in code, so the example text above stays as published.
 */
function ttsUplinkExample(): Json {
  return parse(TTS_UPLINK.replace(/\}\n(\s*)"received_at" : /, '},\n$1"received_at" : '));
}

function chirpstack(text: string, o: { devEui?: string | undefined; deviceName?: string | undefined }): Json {
  const event = parse(text);
  const info = event.deviceInfo as Json;
  if (o.devEui !== undefined) info.devEui = o.devEui;
  if (o.deviceName !== undefined) info.deviceName = o.deviceName;
  return event;
}

/**
 * ChirpStack's `up` example; a test may change the DevEUI and device name, the deduplicationId, the time, the
 * gateways' rssi/snr (each entry a copy of the example's gateway) and add the codec's `object` (the example
 * has none: its device profile has no codec).
 */
export function chirpstackUp(
  o: {
    devEui?: string;
    deviceName?: string;
    deduplicationId?: string;
    time?: string;
    object?: Record<string, unknown>;
    rxInfo?: { rssi: number; snr: number }[];
  } = {},
): Json {
  const up = chirpstack(CHIRPSTACK_UP, o);
  if (o.deduplicationId !== undefined) up.deduplicationId = o.deduplicationId;
  if (o.time !== undefined) up.time = o.time;
  if (o.object !== undefined) up.object = o.object;
  if (o.rxInfo !== undefined) {
    const [gateway] = up.rxInfo as Json[];
    up.rxInfo = o.rxInfo.map((g, i) => ({ ...gateway, uplinkId: 4217106255 + i, rssi: g.rssi, snr: g.snr }));
  }
  return up;
}

/** ChirpStack's `join` example; a test may change the DevEUI and device name. */
export function chirpstackJoin(o: { devEui?: string; deviceName?: string } = {}): Json {
  return chirpstack(CHIRPSTACK_JOIN, o);
}

/** ChirpStack's `ack` example with the queue item id our queue request got, acknowledged or not. */
export function chirpstackAck(o: { devEui?: string; queueItemId: string; acknowledged: boolean }): Json {
  const ack = chirpstack(CHIRPSTACK_ACK, o);
  ack.queueItemId = o.queueItemId;
  // Protobuf's JSON mapping omits a false boolean: a negative ack carries no `acknowledged` at all.
  if (o.acknowledged) ack.acknowledged = true;
  else delete ack.acknowledged;
  return ack;
}

/** ChirpStack's `txack` example with the queue item id our queue request got. */
export function chirpstackTxAck(o: { devEui?: string; queueItemId: string }): Json {
  return { ...chirpstack(CHIRPSTACK_TXACK, o), queueItemId: o.queueItemId };
}

/** ChirpStack's `status` example; a test may change the DevEUI, the battery level and the power source. */
export function chirpstackStatus(
  o: { devEui?: string; batteryLevel?: number; externalPowerSource?: boolean } = {},
): Json {
  const status = chirpstack(CHIRPSTACK_STATUS, o);
  if (o.batteryLevel !== undefined) status.batteryLevel = o.batteryLevel;
  if (o.externalPowerSource !== undefined) status.externalPowerSource = o.externalPowerSource;
  return status;
}

/** ChirpStack's `location` example; a test may change the DevEUI. */
export function chirpstackLocation(o: { devEui?: string } = {}): Json {
  return chirpstack(CHIRPSTACK_LOCATION, o);
}

/**
 * The Things Stack's uplink example; a test may change the DevEUI and device_id, the `as:up:` correlation
 * id (what tells a retried uplink from a new one), the network server's received_at, the gateways' rssi,
 * channel_rssi and snr (each entry a copy of the example's gateway) and the decoded payload.
 */
export function ttsUplink(
  o: {
    devEui?: string;
    deviceId?: string;
    correlationId?: string;
    receivedAt?: string;
    decoded?: Record<string, unknown>;
    rx?: { rssi?: number; channel_rssi?: number; snr?: number }[];
  } = {},
): Json {
  const message = ttsUplinkExample();
  const ids = message.end_device_ids as Json;
  if (o.devEui !== undefined) ids.dev_eui = o.devEui;
  if (o.deviceId !== undefined) ids.device_id = o.deviceId;
  if (o.correlationId !== undefined) {
    message.correlation_ids = (message.correlation_ids as string[]).map((id) =>
      id.startsWith('as:up:') ? `as:up:${o.correlationId}` : id,
    );
  }
  const up = message.uplink_message as Json;
  if (o.receivedAt !== undefined) up.received_at = o.receivedAt;
  if (o.decoded !== undefined) up.decoded_payload = o.decoded;
  if (o.rx !== undefined) {
    const [gateway] = up.rx_metadata as Json[];
    up.rx_metadata = o.rx.map((g) => {
      const copy: Json = { ...gateway };
      for (const member of ['rssi', 'channel_rssi', 'snr'] as const) {
        if (g[member] === undefined) delete copy[member];
        else copy[member] = g[member];
      }
      return copy;
    });
  }
  return message;
}

type DownlinkEvent = 'downlink_queued' | 'downlink_sent' | 'downlink_ack' | 'downlink_nack';

/**
 * The Things Stack's downlink event example (a `downlink_ack`). The document gives one example for the four
 * events and says the member is named for the event (ack, nack, queued or sent): the member is renamed for
 * the others. The downlink's correlation ids get ours appended, as The Things Stack carries those of the
 * pushed downlink; a test may change the device_id and DevEUI.
 */
function ttsDownlinkEvent(
  member: DownlinkEvent,
  o: { devEui?: string; deviceId?: string; correlationIds: string[] },
): Json {
  const message = parse(TTS_DOWNLINK_EVENT);
  const ids = message.end_device_ids as Json;
  if (o.devEui !== undefined) ids.dev_eui = o.devEui;
  if (o.deviceId !== undefined) ids.device_id = o.deviceId;
  const downlink = message.downlink_ack as Json;
  delete message.downlink_ack;
  downlink.correlation_ids = [...(downlink.correlation_ids as string[]), ...o.correlationIds];
  message[member] = downlink;
  return message;
}

export const ttsDownQueued = (o: { devEui?: string; deviceId?: string; correlationIds: string[] }) =>
  ttsDownlinkEvent('downlink_queued', o);
export const ttsDownSent = (o: { devEui?: string; deviceId?: string; correlationIds: string[] }) =>
  ttsDownlinkEvent('downlink_sent', o);
export const ttsDownAck = (o: { devEui?: string; deviceId?: string; correlationIds: string[] }) =>
  ttsDownlinkEvent('downlink_ack', o);
export const ttsDownNack = (o: { devEui?: string; deviceId?: string; correlationIds: string[] }) =>
  ttsDownlinkEvent('downlink_nack', o);

/**
 * The Things Stack's `downlink_failed` example as published: end_device_ids hold only device_id and
 * application_ids (no dev_eui) and there is no received_at. Only the failed downlink's correlation ids get
 * ours appended; a test may change the device_id.
 */
export function ttsDownFailed(o: { deviceId?: string; correlationIds: string[] }): Json {
  const message = parse(TTS_DOWNLINK_FAILED);
  if (o.deviceId !== undefined) (message.end_device_ids as Json).device_id = o.deviceId;
  const downlink = (message.downlink_failed as Json).downlink as Json;
  downlink.correlation_ids = [...(downlink.correlation_ids as string[]), ...o.correlationIds];
  return message;
}
