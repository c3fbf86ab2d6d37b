/**
 * A local ntfy server for tests, written from ntfy's publish documentation (docs.ntfy.sh/publish), not from
 * our sender: it takes a POST or PUT to `/{topic}` with the message as the body and the parameters as
 * headers (`X-Title`/`Title`/`t`, `X-Priority`/`Priority`/`p` as 1–5 or min…max/urgent, `X-Tags`/`Tags`/
 * `ta`, `X-Click`/`Click`, `X-Actions`/`Actions` in ntfy's JSON or simple format; RFC 2047 encoded words
 * decoded), or a JSON message POSTed to `/` naming its `topic`. A topic may be protected by an access token
 * (`Authorization: Bearer tk_…`; anything else 401 as ntfy answers it). It answers the message as ntfy
 * does, records it, and can press a message's action buttons as the ntfy app does (an `http` action is
 * that request, sent with the action's method, headers and body).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface NtfyAction {
  id: string;
  action: string;
  label: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  clear?: boolean;
}

export interface NtfyPublished {
  id: string;
  topic: string;
  title: string;
  message: string;
  priority: number;
  tags: string[];
  click: string;
  actions: NtfyAction[];
  /** The publisher's request headers (to check Authorization and what was sent). */
  headers: IncomingHttpHeaders;
}

export interface NtfyServer {
  /** The server's base URL: a topic's URL is `${url}/${topic}`. */
  url: string;
  messages: NtfyPublished[];
  /** Requires this access token for a topic from now on. */
  protect(topic: string, token: string): void;
  /** What a topic answers from now on instead of the message (a failing server). */
  answer(topic: string, status: number): void;
  /** Presses a message's action button as the ntfy app does; resolves to the answer's status and body. */
  press(message: NtfyPublished, label: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

const PRIORITY_NAMES: Record<string, number> = { min: 1, low: 2, default: 3, high: 4, max: 5, urgent: 5 };

/** An RFC 2047 encoded word (=?UTF-8?B?…?= or =?UTF-8?Q?…?=), decoded as ntfy's mime decoder does. */
function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, kind: string, text: string) =>
    kind.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9a-f]{2})/gi, (_x, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
          'latin1',
        ).toString('utf8'),
  );
}

function header(headers: IncomingHttpHeaders, ...names: string[]): string {
  for (const name of names) {
    const value = headers[name.toLowerCase()];
    if (typeof value === 'string' && value.trim() !== '') return decodeWords(value.trim());
  }
  return '';
}

/** ntfy's simple action format: `http, Label, https://…, method=POST, body=…; view, Open, https://…`. */
function simpleActions(text: string): Omit<NtfyAction, 'id'>[] {
  return text.split(';').map((part) => {
    const [action = '', label = '', url = '', ...rest] = part.split(',').map((s) => s.trim());
    const out: Omit<NtfyAction, 'id'> = { action, label, url };
    for (const pair of rest) {
      const eq = pair.indexOf('=');
      const key = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (key === 'method') out.method = value;
      else if (key === 'body') out.body = value;
      else if (key === 'clear') out.clear = value === 'true';
      else if (key.startsWith('headers.')) out.headers = { ...out.headers, [key.slice(8)]: value };
    }
    return out;
  });
}

function parseActions(raw: unknown): NtfyAction[] {
  let list: Omit<NtfyAction, 'id'>[];
  if (Array.isArray(raw)) list = raw as Omit<NtfyAction, 'id'>[];
  else if (typeof raw === 'string' && raw.trim().startsWith('[')) list = JSON.parse(raw);
  else if (typeof raw === 'string' && raw.trim() !== '') list = simpleActions(raw);
  else list = [];
  if (list.length > 3) throw new Error('too many actions, only 3 allowed');
  return list.map((a, i) => {
    const action = String(a.action).toLowerCase();
    if (!['view', 'http', 'broadcast'].includes(action)) throw new Error(`action '${action}' unknown`);
    if (!a.label) throw new Error('action label missing');
    return { ...a, action, method: a.method?.toUpperCase(), id: `act${i}` };
  });
}

function priorityOf(raw: unknown): number {
  if (raw === undefined || raw === '' || raw === null) return 3;
  const n = typeof raw === 'number' ? raw : (PRIORITY_NAMES[String(raw).toLowerCase()] ?? Number(raw));
  if (!Number.isInteger(n) || n < 1 || n > 5) throw new Error('invalid priority');
  return n;
}

export async function startNtfyServer(): Promise<NtfyServer> {
  const messages: NtfyPublished[] = [];
  const tokens = new Map<string, string>();
  const answers = new Map<string, number>();
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
      const fail = (status: number, code: number, error: string) =>
        send(status, { code, http: status, error });
      if (req.method !== 'POST' && req.method !== 'PUT') return fail(405, 40501, 'method not allowed');
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        const path = new URL(req.url ?? '/', 'http://ntfy').pathname;
        let fields: Record<string, unknown>;
        let topic: string;
        if (path === '/') {
          fields = JSON.parse(text) as Record<string, unknown>;
          topic = String(fields.topic ?? '');
        } else {
          topic = path.slice(1);
          const h = req.headers;
          fields = {
            message: text,
            title: header(h, 'X-Title', 'Title', 't'),
            priority: header(h, 'X-Priority', 'Priority', 'prio', 'p'),
            tags: header(h, 'X-Tags', 'Tags', 'Tag', 'ta'),
            click: header(h, 'X-Click', 'Click'),
            actions: header(h, 'X-Actions', 'Actions', 'Action'),
          };
        }
        if (!/^[-_A-Za-z0-9]{1,64}$/.test(topic)) return fail(400, 40010, 'invalid topic');
        const required = tokens.get(topic);
        if (required && req.headers.authorization !== `Bearer ${required}`) {
          return fail(401, 40101, 'unauthorized');
        }
        const forced = answers.get(topic);
        if (forced) return fail(forced, forced * 100 + 1, 'answered as told');
        const tags = Array.isArray(fields.tags)
          ? fields.tags.map(String)
          : String(fields.tags ?? '')
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean);
        const message: NtfyPublished = {
          id: `msg${++n}`,
          topic,
          title: String(fields.title ?? ''),
          message: String(fields.message ?? ''),
          priority: priorityOf(fields.priority),
          tags,
          click: String(fields.click ?? ''),
          actions: parseActions(fields.actions),
          headers: req.headers,
        };
        messages.push(message);
        const { headers: _, ...answer } = message;
        send(200, { ...answer, time: Math.floor(Date.now() / 1000), event: 'message' });
      } catch (err) {
        fail(400, 40000, `invalid request: ${(err as Error).message}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    messages,
    protect: (topic, token) => {
      tokens.set(topic, token);
    },
    answer: (topic, status) => {
      answers.set(topic, status);
    },
    async press(message, label) {
      const action = message.actions.find((a) => a.label === label);
      if (!action?.url) throw new Error(`no action ${label} with a URL`);
      const res = await fetch(action.url, {
        method: action.method ?? 'POST',
        headers: action.headers ?? {},
        ...(action.body === undefined ? {} : { body: action.body }),
      });
      return { status: res.status, body: await res.text() };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
