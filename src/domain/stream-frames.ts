/**
 * Frames only the live stream sends, and only to a client that asks (`?include=`), with the resource their
 * data belongs to: a caller that may not read it does not get them. Not webhook events: no outbox row.
 * (webhook-events.ts re-exports these; the console's stream code imports this small module alone.)
 */
import type { Resource } from './permissions.ts';

export const STREAM_ONLY_EVENTS = Object.freeze({
  'device.reported': 'readings',
} as const satisfies Record<string, Resource>);

export type StreamOnlyEventName = keyof typeof STREAM_ONLY_EVENTS;

export function isStreamOnlyEvent(value: unknown): value is StreamOnlyEventName {
  return typeof value === 'string' && Object.hasOwn(STREAM_ONLY_EVENTS, value);
}
