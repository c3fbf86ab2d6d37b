/**
 * The one way out of the building: every HTTP request the service sends to an address someone chose
 * (webhooks, LoRaWAN network servers, push services, client metadata documents, notification services)
 * goes through `sendOutbound`. It is undici's `Agent` (the engine of Node's own fetch) with a connector that
 * checks the address the connection really goes to (outbound-connections.ts, with url-guard.ts): an IP
 * literal before connecting, a name inside the connection's own DNS lookup, so neither DNS rebinding nor a
 * redirect can reach a private address. On top: a connect timeout, a response-headers timeout and a deadline
 * for the whole exchange, a cap on the answer's size, redirects not followed unless the caller allows some
 * (each hop guarded again), one User-Agent, and keep-alive pooling. undici is loaded on the first request:
 * most processes never send one, and it is the largest library the server would otherwise hold from its
 * start. Every failure is an
 * `OutboundError` whose `kind` callers branch on and whose message reads as the outcome ("refused: …",
 * "timed out: …", "connection refused (ECONNREFUSED)").
 */
import type { Agent, Dispatcher } from 'undici';
import { agentFor, onUsedConnection } from './outbound-connections.ts';
import { type AddressPolicy, RefusedAddressError, refusalReason } from './url-guard.ts';

/** Sent on every request; callers cannot set their own (one name for the service in receivers' logs). */
export const OUTBOUND_USER_AGENT = 'Farmstead/1.0';

export const OUTBOUND_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
  redirects: 0,
} as const;

export type OutboundErrorKind =
  | 'bad_url'
  | 'refused_address'
  | 'connect_timeout'
  | 'headers_timeout'
  | 'timeout'
  | 'too_large'
  | 'network'
  | 'aborted';

/** A request that got no usable answer; `message` says why in words a person reads in a delivery log. */
export class OutboundError extends Error {
  readonly kind: OutboundErrorKind;
  /** The underlying error's code (ECONNREFUSED, UND_ERR_SOCKET…), when there is one. */
  readonly code: string | undefined;
  constructor(kind: OutboundErrorKind, message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.name = 'OutboundError';
    this.kind = kind;
    this.code = options.code;
  }
}

export interface OutboundRequest {
  url: string | URL;
  /** Default GET, or POST when there is a body. */
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** The one switch (config.webhookAllowPrivate, FARMSTEAD_WEBHOOK_ALLOW_PRIVATE): private addresses allowed. */
  allowPrivate: boolean;
  /** The whole exchange: DNS, connecting, TLS, every redirect hop and reading the answer. */
  timeoutMs?: number;
  /** Connecting (and the TLS handshake) to one address; at most the whole deadline. */
  connectTimeoutMs?: number;
  /** From the request sent to the answer's headers; at most the whole deadline. */
  headersTimeoutMs?: number;
  /** The answer's body is read up to this many bytes; a longer one fails as `too_large`. */
  maxResponseBytes?: number;
  /** How many redirects to follow (default none: a 3xx is the answer). */
  redirects?: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** The URL that answered (another than the one asked for after a redirect). */
  url: string;
}

function parseTarget(raw: string | URL, what: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('bad_url', `${what} "${String(raw).slice(0, 200)}" is not an absolute URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('bad_url', `${what} "${url.href.slice(0, 200)}" is not an http(s) URL`);
  }
  return url;
}

const BY_CODE: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed (temporary DNS failure)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed before the answer was complete',
};

type ErrorLike = Error & { code?: string; errors?: unknown[] };

/** The guard's refusal inside an error (net.connect may wrap its lookup's error in an AggregateError). */
function refusalIn(err: unknown): RefusedAddressError | null {
  if (err instanceof RefusedAddressError) return err;
  const e = err as ErrorLike;
  for (const inner of [e?.cause, ...(Array.isArray(e?.errors) ? e.errors : [])]) {
    if (inner instanceof RefusedAddressError) return inner;
  }
  return null;
}

interface Limits {
  timeoutMs: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  maxResponseBytes: number;
}

/** Any failure as an OutboundError with its readable message. */
function classify(
  err: unknown,
  limits: Limits,
  deadline: AbortSignal,
  caller: AbortSignal | undefined,
  answered: boolean,
): OutboundError {
  if (err instanceof OutboundError) return err;
  const refused = refusalIn(err);
  if (refused) return new OutboundError('refused_address', `refused: ${refused.message}`, { cause: err });
  const e = err as ErrorLike;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (deadline.aborted && !caller?.aborted) {
    const what = answered ? 'the answer was not complete' : 'no response';
    return new OutboundError('timeout', `timed out: ${what} within ${limits.timeoutMs} ms`, { cause: err });
  }
  if (caller?.aborted) return new OutboundError('aborted', 'aborted before the answer came', { cause: err });
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new OutboundError(
      'connect_timeout',
      `timed out: no connection within ${limits.connectTimeoutMs} ms`,
      {
        code,
        cause: err,
      },
    );
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new OutboundError(
      'headers_timeout',
      `timed out: no response within ${limits.headersTimeoutMs} ms`,
      {
        code,
        cause: err,
      },
    );
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return new OutboundError(
      'timeout',
      `timed out: the answer was not complete within ${limits.timeoutMs} ms`,
      {
        code,
        cause: err,
      },
    );
  }
  const known = code ? BY_CODE[code] : undefined;
  const message = known ? `${known} (${code})` : code ? `${e.message} (${code})` : e?.message || String(err);
  return new OutboundError('network', message, { ...(code ? { code } : {}), cause: err });
}

function flatHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  max: number,
  declared: string,
): Promise<Buffer> {
  const tooLarge = () => new OutboundError('too_large', `the answer is larger than ${max} bytes`);
  if (declared && Number(declared) > max) {
    // Destroying an unread body reports an abort; nobody waits for it.
    body.on('error', () => {});
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early destroys the body, and with it the connection: the rest is never read.
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > max) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

interface Hop {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/**
 * One request on the pool. A kept-alive connection the server closed just as it was reused fails before
 * any answer: that is not the server's answer, so it is sent again (as Node's docs advise for the same race),
 * on the pool's next connection, until one that had carried no answer before fails or one answers.
 */
async function sendOnce(
  agent: Agent,
  hop: Hop,
  limits: Limits,
  signal: AbortSignal,
): Promise<Dispatcher.ResponseData> {
  const options: Dispatcher.RequestOptions = {
    origin: hop.url.origin,
    path: `${hop.url.pathname}${hop.url.search}`,
    method: hop.method as Dispatcher.HttpMethod,
    headers: hop.headers,
    body: hop.body ?? null,
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.timeoutMs,
    signal,
  };
  // Each failure closes one used connection, and a new connection's failure is thrown, so this ends (and
  // the deadline bounds it regardless).
  for (;;) {
    try {
      return await agent.request(options);
    } catch (err) {
      if (signal.aborted || !onUsedConnection(err)) throw err;
    }
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** The request the next hop makes (RFC 9110 §15.4: 303, and 301/302 after a POST, become a GET). */
function nextHop(hop: Hop, status: number, location: string): Hop {
  const url = parseTarget(new URL(location, hop.url).href, 'redirected to');
  const asGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(hop.headers)) {
    const lower = name.toLowerCase();
    // Credentials stay with the origin they were meant for; a body's headers go when the body goes.
    if (url.origin !== hop.url.origin && (lower === 'authorization' || lower === 'cookie')) continue;
    if (asGet && (lower === 'content-type' || lower === 'content-length')) continue;
    headers[name] = value;
  }
  return { url, method: asGet ? 'GET' : hop.method, headers, body: asGet ? undefined : hop.body };
}

/**
 * Sends one request through the guard and reads its answer. Resolves with any HTTP status (a 4xx or 5xx
 * is an answer, not a failure); rejects with an OutboundError when there is no usable answer.
 */
export function sendOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  return send(request, request.allowPrivate ? null : refusalReason);
}

/**
 * How long an answer's `Retry-After` header asks the sender to wait (RFC 9110 §10.2.3), in ms from `now`:
 * delta-seconds, or an HTTP-date (IMF-fixdate, or the obsolete RFC 850 and asctime forms, which are GMT);
 * a date already past is 0. Undefined when the header is absent or neither form. Callers cap it.
 */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form starts with the day's name; Date.parse alone takes far more than HTTP allows.
  if (!/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /.test(text)) return undefined;
  const at = Date.parse(/ GMT$/.test(text) ? text : `${text} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * sendOutbound under another address policy, for the client's own tests only (test/outbound.test.ts checks
 * no other file calls it): a test has no public address to start a redirect from, so it lets one loopback
 * address through and refuses the rest, and proves that the next hop is checked again.
 */
export function sendOutboundUnderPolicy(
  policy: AddressPolicy,
  request: Omit<OutboundRequest, 'allowPrivate'>,
): Promise<OutboundResponse> {
  return send({ ...request, allowPrivate: false }, policy);
}

async function send(request: OutboundRequest, policy: AddressPolicy | null): Promise<OutboundResponse> {
  const timeoutMs = request.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
  const limits: Limits = {
    timeoutMs,
    connectTimeoutMs: Math.min(request.connectTimeoutMs ?? timeoutMs, timeoutMs),
    headersTimeoutMs: Math.min(request.headersTimeoutMs ?? timeoutMs, timeoutMs),
    maxResponseBytes: request.maxResponseBytes ?? OUTBOUND_DEFAULTS.maxResponseBytes,
  };
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new Error('deadline')), timeoutMs);
  const signal = request.signal ? AbortSignal.any([deadline.signal, request.signal]) : deadline.signal;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (name.toLowerCase() !== 'user-agent') headers[name] = value;
  }
  headers['user-agent'] = OUTBOUND_USER_AGENT;
  // Whether the last hop's status and headers arrived, so a timeout can say which part was missing.
  let answered = false;
  try {
    const agent = await agentFor(policy, limits.connectTimeoutMs);
    let hop: Hop = {
      url: parseTarget(request.url, 'url'),
      method: (request.method ?? (request.body === undefined ? 'GET' : 'POST')).toUpperCase(),
      headers,
      body: request.body,
    };
    for (let redirects = request.redirects ?? OUTBOUND_DEFAULTS.redirects; ; redirects--) {
      const answer = await sendOnce(agent, hop, limits, signal);
      answered = true;
      const location = answer.headers.location;
      if (redirects > 0 && REDIRECTS.has(answer.statusCode) && typeof location === 'string') {
        await answer.body.dump();
        hop = nextHop(hop, answer.statusCode, location);
        answered = false;
        continue;
      }
      const body = await readCapped(
        answer.body,
        limits.maxResponseBytes,
        String(answer.headers['content-length'] ?? ''),
      );
      return { status: answer.statusCode, headers: flatHeaders(answer.headers), body, url: hop.url.href };
    }
  } catch (err) {
    throw classify(err, limits, deadline.signal, request.signal, answered);
  } finally {
    clearTimeout(timer);
  }
}
