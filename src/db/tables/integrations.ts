/** LoRaWAN integrations (migration 0025; modules/integrations). */

export type DownlinkStatus = 'pending' | 'sent' | 'settled';

export interface IntegrationsTable {
  id: string;
  farm_id: string;
  /** A network server's name in modules/integrations/network-servers.ts's registry (the module reads it). */
  type: string;
  name: string;
  /** SHA-256 of the uplink secret (as device keys are kept): the network server sends it as a bearer. */
  secret_hash: string;
  secret_prefix: string;
  api_url: string | null;
  /** The network server's API key: kept as given (the server must send it), never returned by the API. */
  api_key: string | null;
  application_id: string | null;
  webhook_id: string | null;
  /** JSON text: the integration-wide defaults, by device name pattern or profile. */
  defaults: string;
  created_at: number;
}

/** A Farmstead device carried by an integration, with its mapping and encoder. */
export interface IntegrationDevicesTable {
  device_id: string;
  integration_id: string;
  /** 16 lower-case hex digits. */
  dev_eui: string;
  /** The network server's own device id (The Things Stack's device_id, needed to push downlinks). */
  remote_id: string | null;
  preset: string | null;
  /** JSON text or null (then the integration's default or the preset applies). */
  mapping: string | null;
  encoder: string | null;
  /** JSON text: the last uplink's decoded fields, port, counter, time and link quality. */
  last_uplink: string | null;
  last_uplink_at: number | null;
  created_at: number;
}

export interface IntegrationUnmatchedTable {
  integration_id: string;
  dev_eui: string;
  device_name: string | null;
  remote_id: string | null;
  profile: string | null;
  decoded: string | null;
  f_port: number | null;
  uplinks: number;
  first_seen_at: number;
  last_seen_at: number;
}

/** The uplinks already stored, by integration, device and the server's id for the uplink (migration 0036). */
export interface IntegrationUplinksTable {
  integration_id: string;
  /** The device's DevEUI (16 lower-case hex digits): the server's ids are only unique per device. */
  dev_eui: string;
  dedup_key: string;
  received_at: number;
}

export interface IntegrationDownlinksTable {
  command_id: string;
  integration_id: string;
  device_id: string;
  farm_id: string;
  status: DownlinkStatus;
  confirmed: number;
  attempts: number;
  next_attempt_at: number | null;
  locked_until: number | null;
  /** ChirpStack's queue item id, from the queue answer. */
  remote_id: string | null;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

export interface IntegrationTables {
  integrations: IntegrationsTable;
  integration_devices: IntegrationDevicesTable;
  integration_unmatched: IntegrationUnmatchedTable;
  integration_uplinks: IntegrationUplinksTable;
  integration_downlinks: IntegrationDownlinksTable;
}
