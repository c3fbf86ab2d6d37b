/**
 * What the auth hook (http/auth.ts, installed as its agent authenticator) asks of an access token: the
 * caller it acts as, looked up by hash through the key cache, so a revoked grant stops at the next call.
 */
import type { CachedApiKey } from '../../calls/callers.ts';
import { apiKeyCache } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { agentPolicy } from '../../domain/agent-access.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { findAccessToken, touchGrant } from './repository.ts';

const LAST_USED_EVERY_MS = 60 * 1000;

/** What an access token authenticates as; `agent` says it is one (and to which resource it is bound). */
export type AgentLookup = CachedApiKey & { agent: NonNullable<CachedApiKey['agent']> };

const lastTouched = new Map<string, number>();

/** Looks up an access token (through the key cache); null when unknown, expired or revoked. */
export async function authenticateAccessToken(
  db: Db,
  accessToken: string,
  now: number,
): Promise<AgentLookup | null> {
  const hash = hashSecret(accessToken);
  const found = await apiKeyCache.lookup(db, hash, async () => {
    const row = await findAccessToken(db, hash);
    if (!row) return null;
    const policy = agentPolicy(row.level);
    const value: AgentLookup = {
      accountId: row.account_id,
      keyId: row.id,
      keyName: `agent ${row.client_name}`,
      mode: row.mode,
      prefix: 'oauth',
      grants: policy.families,
      farms: row.farms === null ? null : (JSON.parse(row.farms) as string[]),
      policy,
      session: null,
      lastUsedAt: row.last_used_at,
      agent: {
        grantId: row.id,
        clientName: row.client_name,
        personId: row.person_id,
        resource: row.resource,
        expiresAt: row.expires_at,
      },
    };
    return { value, id: row.id };
  });
  if (!found?.agent || found.agent.expiresAt <= now) return null;
  const last = Math.max(lastTouched.get(found.keyId) ?? 0, found.lastUsedAt ?? 0);
  if (now - last >= LAST_USED_EVERY_MS) {
    if (lastTouched.size >= 10_000) lastTouched.clear();
    lastTouched.set(found.keyId, now);
    await touchGrant(db, found.keyId, now);
  }
  return found as AgentLookup;
}
