/**
 * The farm's live stream (GET /v1/farms/{farm}/stream, Server-Sent Events): pages subscribe to event types
 * and get each event's payload `{id, type, farm_id, created_at, data}`. EventSource sends the session cookie
 * and resumes with Last-Event-ID by itself after a dropped connection. A stream-only frame among the types
 * (`device.reported`: every device report, with its position) is asked for with `?include=`.
 */
import { isStreamOnlyEvent, type StreamOnlyEventName } from '../../../domain/stream-frames.ts';
import type { WebhookEventName } from '../../../domain/webhook-events.ts';
import { useEffect, useRef, useState } from './lib.ts';

export type StreamStatus = 'live' | 'connecting' | 'off';

/** One event as the stream frames it (the webhook payload). */
export interface StreamEvent {
  /** Absent on stream-only frames (they are not kept, so not resumed). */
  id: string;
  type: WebhookEventName | StreamOnlyEventName;
  farm_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

const statusListeners = new Set<(status: StreamStatus) => void>();
let streamStatus: StreamStatus = 'off';

function setStatus(status: StreamStatus): void {
  streamStatus = status;
  for (const listener of statusListeners) listener(status);
}

/** 'live', 'connecting' or 'off': shown in the header so a person knows whether the page updates itself. */
export function useStreamStatus(): StreamStatus {
  const [status, setLocal] = useState(streamStatus);
  useEffect(() => {
    statusListeners.add(setLocal);
    return () => {
      statusListeners.delete(setLocal);
    };
  }, []);
  return status;
}

/** Calls `onEvent(payload)` for each event of `types` on the farm's stream while the component is shown. */
export function useFarmStream(
  farmId: string | null | undefined,
  types: readonly (WebhookEventName | StreamOnlyEventName)[],
  onEvent: (event: StreamEvent) => void,
): void {
  const handler = useRef(onEvent);
  handler.current = onEvent;
  const key = types.join(',');
  useEffect(() => {
    if (!farmId || typeof EventSource === 'undefined') return;
    const include = key.split(',').filter(isStreamOnlyEvent);
    const query = include.length > 0 ? `?include=${encodeURIComponent(include.join(','))}` : '';
    const source = new EventSource(`/v1/farms/${encodeURIComponent(farmId)}/stream${query}`);
    setStatus('connecting');
    source.onopen = () => setStatus('live');
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'off' : 'connecting');
    const listener = (event: MessageEvent<string>) => {
      let payload: StreamEvent;
      try {
        payload = JSON.parse(event.data) as StreamEvent;
      } catch {
        return;
      }
      handler.current(payload);
    };
    for (const type of key.split(',')) source.addEventListener(type, listener);
    return () => {
      source.close();
      setStatus('off');
    };
  }, [farmId, key]);
}
