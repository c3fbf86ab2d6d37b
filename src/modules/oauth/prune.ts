import type { Db } from '../../db/schema.ts';
import { CIMD_FRESH_MS } from './clients.ts';
import { pruneRows } from './repository.ts';

/**
 * The `oauth.prune` job: expired codes and tokens, then grants left with neither (revoked, expired, or
 * consented to but never redeemed) a day on, and cached client metadata documents no grant uses once stale.
 * Registered (DCR) clients stay: a client keeps its client_id and comes back with it.
 */
export function pruneOAuth(db: Db, now: number) {
  return pruneRows(db, now, now - CIMD_FRESH_MS);
}
