/**
 * A Server-Sent Events client for tests, over a real socket (inject buffers a response until it ends, and a
 * stream never does). It parses the stream as the WHATWG EventSource does: events, `id:` lines (also on
 * their own, which set the last event id without an event), `retry:` and comments, and keeps all of it for
 * the test to read.
 */
import { type IncomingMessage, request } from 'node:http';
import { waitFor } from './engines.ts';

export interface SseEvent {
  id: string | null;
  event: string;
  data: string;
  /** `data` parsed as JSON. */
  // Tests read the payload's members directly.
  json: any;
}

export interface SseStream {
  status: number;
  headers: IncomingMessage['headers'];
  events: SseEvent[];
  comments: string[];
  /** The last event id as EventSource keeps it (what it would send as Last-Event-ID). */
  lastEventId: string;
  retry: number | null;
  /** Everything received, as text. */
  text: string;
  /** The body of a non-200 answer. */
  body: string;
  /** Resolves when the server ended the response (`clean`: it completed, rather than being cut off). */
  ended: Promise<{ clean: boolean }>;
  /** Waits for the first event of `type` matching `where`. */
  next(type: string, where?: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `url` (http://host:port/path) with the key and headers; resolves once the response head arrived. */
export function openSse(url: string, key: string, headers: Record<string, string> = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      // An empty key: no Authorization header (a console session's cookie in `headers` instead).
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        accept: 'text/event-stream',
        ...headers,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let buffer = '';
      let data: string[] = [];
      let type = '';
      let endedResolve: (v: { clean: boolean }) => void = () => {};
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        events: [],
        comments: [],
        lastEventId: '',
        retry: null,
        text: '',
        body: '',
        ended: new Promise((r) => {
          endedResolve = r;
        }),
        next: (want, where = () => true, timeoutMs = 10_000) =>
          waitFor(
            `a ${want} event`,
            () => stream.events.find((e) => e.event === want && where(e)),
            timeoutMs,
          ),
        close: () => {
          req.destroy();
        },
      };
      const line = (text: string) => {
        if (text === '') {
          // Dispatch: the id is kept even when there is no data (no event then).
          if (data.length > 0) {
            const joined = data.join('\n');
            let json: unknown = null;
            try {
              json = JSON.parse(joined);
            } catch {
              json = null;
            }
            stream.events.push({
              id: stream.lastEventId || null,
              event: type || 'message',
              data: joined,
              json,
            });
          }
          data = [];
          type = '';
          return;
        }
        if (text.startsWith(':')) {
          stream.comments.push(text.slice(1).trim());
          return;
        }
        const colon = text.indexOf(':');
        const field = colon === -1 ? text : text.slice(0, colon);
        let value = colon === -1 ? '' : text.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') data.push(value);
        else if (field === 'event') type = value;
        else if (field === 'id') stream.lastEventId = value;
        else if (field === 'retry') stream.retry = Number(value);
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        stream.text += chunk;
        if (stream.status !== 200) {
          stream.body += chunk;
          return;
        }
        buffer += chunk;
        const lines = buffer.split(/\r\n|\r|\n/);
        buffer = lines.pop() ?? '';
        for (const l of lines) line(l);
      });
      res.on('end', () => endedResolve({ clean: true }));
      res.on('aborted', () => endedResolve({ clean: false }));
      res.on('error', () => endedResolve({ clean: false }));
      res.on('close', () => endedResolve({ clean: res.complete }));
      resolve(stream);
    });
    req.end();
  });
}
