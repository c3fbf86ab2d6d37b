/**
 * The consent page's side: what it shows about a checked request, and the signed-in person's answer (a
 * grant and a one-time code, or access_denied). Codes are random and stored as SHA-256 hashes.
 */
import type { ApiCaller } from '../../calls/callers.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AGENT_LEVELS, type AgentLevel, agentPolicy, policyWithin } from '../../domain/agent-access.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { ROLE_PRESETS } from '../../domain/permissions.ts';
import { hashSecret, type KeyMode, randomToken } from '../../lib/secrets.ts';
import type { CheckedRequest } from './authorization-request.ts';
import { accountFarms, existingFarmIds, insertGrantWithCode } from './repository.ts';
import { redirectWith, type ServerUrls } from './urls.ts';

/** An authorization code is redeemed within this, once. */
export const CODE_TTL_MS = 60 * 1000;
const CODE_PREFIX = 'rc_';

/** What the consent page shows about a request. */
export async function describeRequest(db: Db, caller: ApiCaller, checked: CheckedRequest) {
  const session = requirePerson(caller);
  const farms = await accountFarms(db, caller.accountId);
  const role = ROLE_PRESETS[session.role];
  return {
    client: {
      client_id: checked.client.clientId,
      name: checked.client.name,
      redirect_host: new URL(checked.redirectUri).host || checked.redirectUri,
      registration: checked.client.kind === 'cimd' ? ('metadata_document' as const) : ('dynamic' as const),
      // A metadata document's host vouches for the client (the CIMD draft asks to show it); a registration has none.
      published_by: checked.client.kind === 'cimd' ? new URL(checked.client.clientId).host : null,
    },
    farms: farms.map((f) => ({ id: f.id, name: f.name, mode: f.mode })),
    mode: caller.mode,
    levels: (Object.keys(AGENT_LEVELS) as AgentLevel[])
      .filter((level) => policyWithin(agentPolicy(level), role))
      .map((level) => ({ level, title: AGENT_LEVELS[level].title })),
  };
}

function requirePerson(caller: ApiCaller): NonNullable<ApiCaller['session']> {
  if (!caller.session) {
    throw new AppError(
      'forbidden',
      'Only a person signed in to the console can connect an agent; an API key cannot grant access.',
    );
  }
  return caller.session;
}

export interface ConsentInput {
  decision: 'allow' | 'deny';
  mode?: KeyMode;
  farms?: string[] | null;
  level?: AgentLevel;
}

/** The person's answer: a grant and a one-time code (allow), or access_denied; either way, where to go. */
export async function consent(
  db: Db,
  caller: ApiCaller,
  checked: CheckedRequest,
  input: ConsentInput,
  urls: ServerUrls,
  now: number,
): Promise<{ redirect_to: string }> {
  const session = requirePerson(caller);
  if (input.decision === 'deny') {
    return {
      redirect_to: redirectWith(
        checked.redirectUri,
        { error: 'access_denied', error_description: 'The person did not allow access.' },
        checked.state,
        urls.issuer,
      ),
    };
  }
  const level = input.level;
  if (!level || !(level in AGENT_LEVELS)) throw invalid('level', 'level must be read, record or full.');
  if (!policyWithin(agentPolicy(level), ROLE_PRESETS[session.role])) {
    throw new AppError(
      'forbidden',
      `A ${session.role} cannot let an agent do more than they may do themselves; choose read.`,
      {
        param: 'level',
      },
    );
  }
  const mode = input.mode ?? caller.mode;
  const farms = input.farms ?? null;
  if (farms !== null) {
    if (farms.length === 0) throw invalid('farms', 'Pick at least one farm (or every farm).');
    const found = await existingFarmIds(db, caller.accountId, mode, farms);
    const missing = farms.find((id) => !found.has(id));
    if (missing) throw invalid('farms', `No ${mode} farm with id "${missing}" in this account.`);
  }
  const code = `${CODE_PREFIX}${randomToken(32)}`;
  await inTransaction(db, (trx) =>
    insertGrantWithCode(
      trx,
      {
        id: `agt_${randomToken(20)}`,
        account_id: caller.accountId,
        person_id: session.personId,
        client_row_id: checked.client.rowId,
        client_name: checked.client.name,
        redirect_uri: checked.redirectUri,
        resource: checked.resource,
        mode,
        farms: farms === null ? null : JSON.stringify([...new Set(farms)]),
        level,
        created_at: now,
        last_used_at: null,
        revoked_at: null,
      },
      { code_hash: hashSecret(code), code_challenge: checked.codeChallenge, expires_at: now + CODE_TTL_MS },
    ),
  );
  return { redirect_to: redirectWith(checked.redirectUri, { code }, checked.state, urls.issuer) };
}
