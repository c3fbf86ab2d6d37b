/**
 * The requests to network server APIs (downlinks), through the outbound client (lib/outbound.ts: the SSRF
 * guard inside every connection, off with FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1; the address was checked when
 * saved too, by calls/outbound-url.ts). Unlike webhook delivery it sends a bearer key and keeps the start of
 * the answer: a refusal's words go into the command's result. Touches no database.
 */
import { OutboundError, sendOutbound } from '../../lib/outbound.ts';

export interface ClientSettings {
  allowPrivate: boolean;
  timeoutMs: number;
}

export interface ApiAnswer {
  status: number;
  /** The body's first 2,000 characters, parsed when it is JSON. */
  body: unknown;
}

const MAX_BODY = 2_000;
// A network server answers a queued downlink with a few hundred bytes; far more is not its API.
const MAX_ANSWER_BYTES = 256 * 1024;

/** A failed request in words (the command's result keeps them); an OutboundError's message names its deadline. */
export function describeFailure(err: unknown, _timeoutMs: number): string {
  if (err instanceof OutboundError) return err.message;
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.message} (${e.code})` : e.message || String(err);
}

/** Whether a failure is the SSRF guard's refusal, which waiting will not change. */
export function isRefusedAddress(err: unknown): boolean {
  return err instanceof OutboundError && err.kind === 'refused_address';
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** POSTs JSON with `Authorization: Bearer <apiKey>`; resolves with the answer or rejects (network, guard, deadline). */
export async function postToNetworkServer(
  url: string,
  body: unknown,
  apiKey: string | null,
  settings: ClientSettings,
): Promise<ApiAnswer> {
  const answer = await sendOutbound({
    url,
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json',
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify(body),
    allowPrivate: settings.allowPrivate,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: MAX_ANSWER_BYTES,
  });
  return { status: answer.status, body: parsed(answer.body.toString('utf8').slice(0, MAX_BODY)) };
}
