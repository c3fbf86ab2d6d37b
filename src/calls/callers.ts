/**
 * Who is calling: what the auth hook (src/http/auth.ts) sets on each request, what the key cache
 * (key-cache.ts) holds, and what services that act for a caller take. Types only, so both can import them
 * without a circle; below http/ and modules/, so services name a caller without importing the framework.
 */
import type { FamilyGrants, Policy, RoleName } from '../domain/permissions.ts';
import type { KeyMode } from '../lib/secrets.ts';

export interface ApiCaller {
  kind: 'api';
  accountId: string;
  keyId: string;
  keyName: string;
  mode: KeyMode;
  prefix: string;
  /** The key's family grants (every family at write unless the key is restricted). */
  grants: FamilyGrants;
  /** The farms a restricted key may reach; null: every farm of its mode. */
  farms: readonly string[] | null;
  /** What the caller may do: the key's grants, or the signed-in person's role preset. */
  policy: Policy;
  /** Set when a console session (not a key) called; `keyId` is then the person's id. */
  session: SessionIdentity | null;
  /** Set when an OAuth access token called (a connected agent); `keyId` is then its grant's id. */
  agent?: AgentIdentity | null;
}

/** The connected agent behind an OAuth access token. */
export interface AgentIdentity {
  grantId: string;
  clientName: string;
  /** The person who allowed the agent: it speaks for them (their language is its default: MCP's farm_brief). */
  personId: string;
  /** The resource (RFC 8707) the token is bound to. */
  resource: string;
  /** Epoch ms the access token expires. */
  expiresAt: number;
}

/** The signed-in person behind a session-cookie request. */
export interface SessionIdentity {
  sessionId: string;
  personId: string;
  email: string;
  role: RoleName;
  /** The CSRF token writes must carry (derived from the session token, never stored). */
  csrfToken: string;
  /** Epoch ms the session was last seen (after this request), from which its idle expiry runs. */
  lastSeenAt: number;
}

/** What a session cookie resolves to: its account, mode and person (null: unknown, ended or idle too long). */
export interface SessionLookup extends Omit<SessionIdentity, 'csrfToken'> {
  accountId: string;
  mode: KeyMode;
}

export interface DeviceCaller {
  kind: 'device';
  deviceId: string;
  farmId: string;
  accountId: string;
  mode: KeyMode;
}

/** An active (unrevoked) API key, found by the SHA-256 hash of its secret. */
export interface ActiveApiKey {
  keyId: string;
  accountId: string;
  keyName: string;
  mode: KeyMode;
  prefix: string;
  grants: FamilyGrants;
  farms: readonly string[] | null;
  lastUsedAt: number | null;
}

/** What the key cache holds for an API key. */
export type CachedApiKey = Omit<ApiCaller, 'kind'> & { lastUsedAt: number | null };
