/**
 * What a LoRaWAN network server is to Farmstead: an adapter that reads the messages it posts to an
 * integration's uplink URL, checks the settings its API needs, builds the request that queues a downlink
 * there and reads the server's answer. Each server is one file (chirpstack.ts, ttn.ts) and one line in
 * network-servers.ts; receive.ts, downlinks.ts and service.ts only ever call through this contract.
 */
import type { EncodedDownlink } from './downlink.ts';
import type { NetworkEvent } from './network-events.ts';

/** An HTTP request to the network server's API (POSTed as JSON with the integration's API key as Bearer). */
export interface DownlinkRequest {
  url: string;
  body: unknown;
}

/** Where a downlink goes: the integration's API settings and what is known of the device there. */
export interface DownlinkTarget {
  apiUrl: string;
  /** 16 lower-case hex digits. */
  devEui: string;
  /** The server's own device id (The Things Stack's device_id), learnt from uplinks or set by hand. */
  remoteId: string | null;
  applicationId: string | null;
  webhookId: string | null;
}

/** The integration's settings as saved (a create, or a PATCH merged over the row). */
export interface ApiSettings {
  api_url: string | null;
  api_key: string | null;
  application_id: string | null;
  webhook_id: string | null;
}

export interface NetworkServer {
  /** Its name for people: API descriptions, the console, errors. */
  label: string;
  /** An example API address, for the API's description of api_url. */
  apiUrlExample: string;
  /** Reads one message posted to the uplink URL; `event` is the request's `?event=`. A bad body is a 400. */
  parseEvent(message: { event: string | undefined; body: unknown }, now: number): NetworkEvent;
  /**
   * Why these settings cannot send downlinks (the member named), or null: checked on create and on every
   * change, after the address itself passed the SSRF guard.
   */
  apiProblem(settings: ApiSettings): { param: string; message: string } | null;
  /** The request that queues this command's downlink, or why there is none (the command then fails). */
  downlinkRequest(
    target: DownlinkTarget,
    downlink: EncodedDownlink,
    commandId: string,
  ): { ok: true; request: DownlinkRequest } | { ok: false; error: string };
  /** The server's id for an accepted downlink (from its 2xx answer), which its later events name; or null. */
  acceptedId(answer: unknown): string | null;
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
