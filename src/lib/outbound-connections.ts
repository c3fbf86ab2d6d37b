/**
 * The outbound client's connections (outbound.ts sends through them): undici's `Agent` pools, one per
 * address policy and connect timeout, each with a connector that refuses what the guard refuses (url-guard.ts)
 * at the address really connected to; and whether a failure happened on a kept-alive connection that had
 * already carried an answer. undici is loaded with the first request.
 */
import type { Agent, buildConnector } from 'undici';
import { type AddressPolicy, bareHost, guardedLookupWith, literalRefusal } from './url-guard.ts';

// Marks a socket error raised on a connection that had already carried an exchange (see sendOnce in outbound.ts).
const ON_USED_CONNECTION = Symbol('onUsedConnection');

/**
 * A connector that refuses what the guard refuses: IP literals here (they never reach a lookup), names in
 * the connection's lookup, so the address checked is the address connected to.
 */
function connectorFor(
  undici: Undici,
  policy: AddressPolicy | null,
  connectTimeoutMs: number,
): buildConnector.connector {
  const connect = undici.buildConnector({
    timeout: connectTimeoutMs,
    allowH2: false,
    ...(policy ? { lookup: guardedLookupWith(policy) } : {}),
  });
  return (options, callback) => {
    if (policy) {
      const refused = literalRefusal(bareHost(options.hostname), policy);
      if (refused) {
        callback(refused, null);
        return;
      }
    }
    connect(options, (err, socket) => {
      if (err || !socket) {
        callback(err ?? new Error('no socket'), null);
        return;
      }
      // A reset on a kept-alive connection: undici gives the bare socket error, so say here whether the
      // connection had carried an earlier answer (TLS counts only application bytes, so 0 on a new one).
      socket.prependListener('error', (socketError: Error & { [ON_USED_CONNECTION]?: boolean }) => {
        if (socket.bytesRead > 0) socketError[ON_USED_CONNECTION] = true;
      });
      callback(null, socket);
    });
  };
}

// One pool per policy and connect timeout (undici sets the connect timeout per connector); connections
// opened with private addresses allowed are never reused by a guarded request.
const agents = new Map<AddressPolicy | null, Map<number, Agent>>();

type Undici = typeof import('undici');
let undiciLoaded: Promise<Undici> | null = null;

export async function agentFor(policy: AddressPolicy | null, connectTimeoutMs: number): Promise<Agent> {
  undiciLoaded ??= import('undici');
  const undici = await undiciLoaded;
  let byTimeout = agents.get(policy);
  if (!byTimeout) {
    byTimeout = new Map();
    agents.set(policy, byTimeout);
  }
  let agent = byTimeout.get(connectTimeoutMs);
  if (!agent) {
    agent = new undici.Agent({ connect: connectorFor(undici, policy, connectTimeoutMs) });
    byTimeout.set(connectTimeoutMs, agent);
  }
  return agent;
}

/** Whether a failure before any answer happened on a kept-alive connection the server had closed. */
export function onUsedConnection(err: unknown): boolean {
  const e = err as {
    code?: unknown;
    socket?: { bytesRead?: number };
    [ON_USED_CONNECTION]?: boolean;
  } | null;
  if (e?.[ON_USED_CONNECTION]) return true;
  return e?.code === 'UND_ERR_SOCKET' && (e.socket?.bytesRead ?? 0) > 0;
}
