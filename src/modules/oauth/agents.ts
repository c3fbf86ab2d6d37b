/** Connected agents (`/v1/agents`): the account's grants, and revoking one. */
import type { ApiCaller } from '../../calls/callers.ts';
import { forgetApiKey } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../domain/errors.ts';
import { toIso } from '../../lib/time.ts';
import { grantExists, listGrants, revokeGrantRows } from './repository.ts';

/** Who may see and revoke connected agents: a key with the keys family, an owner (all), anyone else (their own). */
function agentScope(caller: ApiCaller): { personId: string | null; write: boolean } {
  if (caller.session) {
    return caller.session.role === 'owner'
      ? { personId: null, write: true }
      : { personId: caller.session.personId, write: true };
  }
  const level = caller.policy.families.keys;
  if (!level)
    throw new AppError('forbidden', 'This key lacks the keys permission, which connected agents need.');
  return { personId: null, write: level === 'write' };
}

/** The account's connected agents (grants not revoked), newest first. */
export async function listAgents(db: Db, caller: ApiCaller) {
  const scope = agentScope(caller);
  const rows = await listGrants(db, caller.accountId, scope.personId);
  return {
    data: rows.map((r) => ({
      id: r.id,
      client_name: r.client_name,
      redirect_host: new URL(r.redirect_uri).host || r.redirect_uri,
      mode: r.mode,
      farms: r.farms === null ? null : (JSON.parse(r.farms) as string[]),
      level: r.level,
      connected_by: r.email,
      created_at: toIso(r.created_at),
      last_used_at: toIso(r.last_used_at),
    })),
  };
}

/** Revokes a connected agent: its tokens stop working at the next call, in every process. */
export async function revokeAgent(db: Db, caller: ApiCaller, id: string, now: number) {
  const scope = agentScope(caller);
  if (!scope.write)
    throw new AppError('forbidden', 'This key can read connected agents but not revoke them (keys:write).');
  const done = await inTransaction(db, async (trx) => {
    if (!(await grantExists(trx, caller.accountId, id, scope.personId))) return false;
    await revokeGrantRows(trx, id, now);
    return true;
  });
  if (!done) throw new AppError('not_found', `No connected agent with id "${id}".`);
  forgetApiKey(id);
  return { id, revoked_at: toIso(now) };
}
