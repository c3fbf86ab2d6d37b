/**
 * The idempotency keys' repository: claim a key, complete it with the response, release it, prune it.
 * Shared by the HTTP plugin (src/http/idempotency.ts: `Idempotency-Key` on every POST), the MCP write tools
 * (`idempotency_key`) and the `idempotency.prune` job, so it sits below all three.
 * The claim is a row under a unique (scope, key) in the same database, so it holds across processes on
 * PostgreSQL: the first insert wins; duplicates wait for its response and replay it.
 */
import { createHash } from 'node:crypto';
import type { Db } from '../db/schema.ts';
import { AppError, conflict } from '../domain/errors.ts';
import { randomToken } from '../lib/secrets.ts';
import { HOUR_MS } from '../lib/time.ts';

/** How long a key is remembered after its first use. */
export const IDEMPOTENCY_TTL_MS = 24 * HOUR_MS;
/** Longest accepted key. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/**
 * A pending claim older than this is taken to belong to a crashed process and may run again. Far longer
 * than any request here takes, so a live first request is never run twice.
 */
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a duplicate waits for the first request's response before answering 409. */
export const IDEMPOTENCY_WAIT_MS = 10_000;
const POLL_MS = 25;

export interface IdempotencyClaim {
  /** The credential the key belongs to: `key:<api key id>` or `device:<device id>`. */
  scope: string;
  key: string;
  fingerprint: string;
}

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

export type ClaimOutcome = { kind: 'run'; owner: string } | ({ kind: 'replay' } & StoredResponse);

/** Checks a client-sent key: 1 to 255 characters. `param` names where it came from. */
export function checkIdempotencyKey(value: unknown, param: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new AppError(
      'invalid_request',
      `${param} must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters (a UUID is a good choice).`,
      { param },
    );
  }
  return value;
}

/** JSON with object members in sorted order, so the same body sent with another member order matches. */
function canonicalJson(value: unknown): string {
  // A body kept as bytes (the CSV import): its digest, not a member per byte.
  if (value instanceof Uint8Array) return `"sha256:${createHash('sha256').update(value).digest('hex')}"`;
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** SHA-256 of what makes two requests "the same": e.g. method and path, then the parsed body. */
export function fingerprintOf(target: string, body: unknown): string {
  return createHash('sha256').update(target).update('\n').update(canonicalJson(body)).digest('hex');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function freshClaim(claim: IdempotencyClaim, owner: string, now: number) {
  return {
    fingerprint: claim.fingerprint,
    owner,
    status: 'pending' as const,
    response_status: null,
    response_type: null,
    response_body: null,
    created_at: now,
    locked_until: now + IDEMPOTENCY_LEASE_MS,
    expires_at: now + IDEMPOTENCY_TTL_MS,
  };
}

/**
 * Claims `claim.key` for this request, or answers from the first request that used it:
 *  - unused (or expired, or pending past its lease): `run`, with the owner token to complete or release;
 *  - done with the same fingerprint: `replay` of the stored response;
 *  - used with a different fingerprint: 409 conflict;
 *  - pending: waits (polling) up to `waitMs` for it to finish, then replays; still running: 409 conflict.
 */
export async function claimIdempotencyKey(
  db: Db,
  claim: IdempotencyClaim,
  options: { param: string; waitMs?: number },
): Promise<ClaimOutcome> {
  const deadline = Date.now() + (options.waitMs ?? IDEMPOTENCY_WAIT_MS);
  for (;;) {
    const now = Date.now();
    const owner = randomToken(20);
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ scope: claim.scope, key: claim.key, ...freshClaim(claim, owner, now) })
      .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
      .returning('owner')
      .executeTakeFirst();
    if (inserted) return { kind: 'run', owner };

    const row = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .executeTakeFirst();
    if (row && (row.expires_at <= now || (row.status === 'pending' && row.locked_until <= now))) {
      // Compare-and-set on the old owner: of several retries taking over, exactly one wins.
      const taken = await db
        .updateTable('idempotency_keys')
        .set(freshClaim(claim, owner, now))
        .where('scope', '=', claim.scope)
        .where('key', '=', claim.key)
        .where('owner', '=', row.owner)
        .returning('owner')
        .executeTakeFirst();
      if (taken) return { kind: 'run', owner };
    } else if (row) {
      if (row.fingerprint !== claim.fingerprint) {
        throw conflict(
          `${options.param} "${claim.key}" was already used with a different request (method, path or body differ). Use a new key for a new request.`,
          options.param,
        );
      }
      if (row.status === 'done' && row.response_status !== null) {
        return {
          kind: 'replay',
          status: row.response_status,
          contentType: row.response_type,
          body: row.response_body ?? '',
        };
      }
    }
    // Pending elsewhere, or released/taken over between our reads: look again shortly.
    if (Date.now() >= deadline) {
      throw conflict(
        `A request with ${options.param} "${claim.key}" is still in progress; retry it in a moment to get its response.`,
        options.param,
      );
    }
    await sleep(POLL_MS);
  }
}

/** Stores the response of the request holding the claim; a claim since taken over is left alone. */
export async function completeIdempotencyKey(
  db: Db,
  claim: Pick<IdempotencyClaim, 'scope' | 'key'>,
  owner: string,
  response: StoredResponse,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      response_status: response.status,
      response_type: response.contentType,
      response_body: response.body,
    })
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .where('owner', '=', owner)
    .execute();
}

/** Forgets a claim whose request failed on our side (5xx), so a retry runs it again. */
export async function releaseIdempotencyKey(
  db: Db,
  claim: Pick<IdempotencyClaim, 'scope' | 'key'>,
  owner: string,
): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('scope', '=', claim.scope)
    .where('key', '=', claim.key)
    .where('owner', '=', owner)
    .execute();
}

/** Deletes keys past their 24 hours (the `idempotency.prune` job); returns how many went. */
export async function pruneIdempotencyKeys(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
