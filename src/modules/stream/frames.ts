/**
 * The text/event-stream framing (WHATWG HTML, "Server-sent events"). An event is the webhook payload of
 * the same outbox row (`payloadOf`, one function for both), so a stream client and a webhook receiver read
 * the same JSON.
 */

import { toIso } from '../../lib/time.ts';
import { payloadOf } from '../webhooks/signing.ts';
import type { ReportedDevice, StreamRow } from './repository.ts';

/** The event a stream opens with when it cannot resume where the client asks (see docs/stream.md). */
export const RESET_EVENT = 'stream.reset';

/** Each line of a data field is its own `data:` line (JSON text has none, but the framing must not rely on it). */
function dataLines(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join('');
}

export function eventFrame(row: StreamRow): string {
  return `id: ${row.id}\nevent: ${row.type}\n${dataLines(payloadOf(row))}\n`;
}

/**
 * Sets the client's last event id without an event (an id with no data dispatches nothing but is kept),
 * so a client that reconnects before the next event resumes from here rather than from "now".
 */
export function positionFrame(eventId: string): string {
  return `id: ${eventId}\n\n`;
}

/** How long EventSource waits before it reconnects, in ms. */
export function retryFrame(ms: number): string {
  return `retry: ${ms}\n\n`;
}

export function commentFrame(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

/** The `stream.reset` event: the id the client sent is not one the stream can resume after. */
export function resetFrame(lastEventId: string, position: string | null): string {
  const data = JSON.stringify({
    object: 'stream_reset',
    last_event_id: lastEventId,
    message:
      `Last-Event-ID ${lastEventId} is not an event this farm's stream still holds (older than the outbox ` +
      'retention, or not an event of this farm), so events may have been missed. Reload what you show from ' +
      'the API; the stream goes on from now.',
  });
  return `${position ? `id: ${position}\n` : ''}event: ${RESET_EVENT}\n${dataLines(data)}\n`;
}

/** The stream-only frame of a device report (see docs/stream.md). */
export const REPORT_EVENT = 'device.reported';

/**
 * A `device.reported` frame: the device's latest value of every metric and, when it changed since this
 * stream's last frame of the device (or in its first), its state. No `id:` line: these frames are not
 * kept, so a reconnecting client resumes after the last event it had (and reloads values from the API).
 */
export function reportFrame(
  farmId: string,
  device: ReportedDevice,
  latest: Record<string, { value: number; unit: string | null; at: number }>,
  state: string | null,
): string {
  const values = Object.fromEntries(
    Object.entries(latest).map(([metric, r]) => [metric, { value: r.value, unit: r.unit, at: toIso(r.at) }]),
  );
  const head = JSON.stringify({
    type: REPORT_EVENT,
    farm_id: farmId,
    created_at: toIso(device.last_seen_at),
    data: {
      object: 'device_report',
      device_id: device.id,
      name: device.name,
      type: device.type,
      battery: device.battery,
      lat: device.lat,
      lon: device.lon,
      last_seen_at: toIso(device.last_seen_at),
      latest: values,
    },
  });
  // The state is embedded as stored (JSON text), like webhook data, without a parse and re-serialise.
  const text = state === null ? head : `${head.slice(0, -2)},"state":${state}}}`;
  return `event: ${REPORT_EVENT}\n${dataLines(text)}\n`;
}
