import { Type } from 'typebox';
import { RECORD_KINDS } from '../../domain/record-kinds.ts';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';
import { RESET_EVENT } from './frames.ts';

/** An outbox event id as the stream sends it (`id:`) and takes it back (Last-Event-ID). */
export const EVENT_ID_PATTERN = new RegExp(`^${RECORD_KINDS.outbox.prefix}_[0-9a-z]{26}$`);

export const StreamQuery = Type.Object(
  {
    include: Type.Optional(
      Type.String({
        maxLength: 200,
        description:
          'Stream-only frames to add, comma-separated: `device.reported` (each device report: the device’s latest values, and its state when it changed). Sent only if the key may read readings (devices:read).',
      }),
    ),
    last_event_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins when both are sent).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const STREAM_DESCRIPTION = [
  'A live stream (Server-Sent Events, `text/event-stream`) of every event a webhook of this farm could receive, as it happens. Each event is:',
  '',
  '```',
  'id: msg_…            (the event id: the webhook payload’s id)',
  'event: alert.created (the webhook event type)',
  'data: {"id":"msg_…","type":"alert.created","farm_id":"farm_…","created_at":"…","data":{…}}',
  '```',
  '',
  `\`data\` is exactly the JSON a webhook receives for that event. Types: ${WEBHOOK_EVENTS.map((e) => `\`${e}\``).join(', ')}. The caller sees the types its key may read (alerts, commands, events, devices, animals).`,
  '',
  'Resume: send `Last-Event-ID` (EventSource does on reconnect) or `?last_event_id=`; the stream then sends every event after that one, none lost and none repeated, in the order they were committed. A stream opened without one starts from now, and first sets the client’s last event id to the farm’s newest event (an `id:` line with no data).',
  `When the id is not an event this farm’s stream still holds (older than the outbox retention, FARMSTEAD_WEBHOOK_RETENTION_DAYS, or not of this farm), the stream opens with a \`${RESET_EVENT}\` event (\`{"object":"stream_reset","last_event_id","message"}\`): reload from the API, the stream goes on from now.`,
  '',
  '`?include=device.reported` adds a frame per device report (`event: device.reported`, no `id:` line: not kept, not resumed): `{"type":"device.reported","farm_id","created_at","data":{"object":"device_report","device_id","name","type","battery","lat","lon","last_seen_at","latest":{metric:{value,unit,at}},"state"}}`, `latest` every metric’s latest value, `state` only when it changed since this stream’s previous frame of the device. For keys that may read readings (devices:read); reports stored by another server process arrive within FARMSTEAD_STREAM_POLL_MS.',
  '',
  'Comment lines (`: keep-alive`) come every 15 s (FARMSTEAD_STREAM_KEEPALIVE_MS). The server ends the stream cleanly when it shuts down, when the key is revoked or the farm deleted, or when a client reads too slowly; reconnect with Last-Event-ID. Behind a proxy, turn response buffering off (docs/deployment.md).',
].join('\n');
