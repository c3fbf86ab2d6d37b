/**
 * The token endpoint (RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.6; RFC 8707 §2.2): an authorization code with
 * its PKCE verifier, or a refresh token (rotated on each use), for a new access and refresh token pair. A
 * code or refresh token that comes back revokes its grant, in every process (the key cache is told).
 */
import { createHash } from 'node:crypto';
import { forgetApiKey } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { hashSecret, randomToken, sameSecret } from '../../lib/secrets.ts';
import { OAuthError } from './errors.ts';
import { type FormFields, field, required } from './form-fields.ts';
import {
  findCode,
  findGrantWithClient,
  findRefreshToken,
  insertTokenPair,
  markCodeUsed,
  markRefreshUsed,
  revokeGrantRows,
} from './repository.ts';
import type { ServerUrls } from './urls.ts';

/** Access tokens are short-lived; a client refreshes them. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
/** A refresh token not used for this long expires (each use replaces it with a new one). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export const ACCESS_TOKEN_PREFIX = 'ro_';
const REFRESH_TOKEN_PREFIX = 'rr_';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

async function issueTokens(trx: Db, grantId: string, now: number): Promise<TokenAnswer> {
  const access = `${ACCESS_TOKEN_PREFIX}${randomToken(32)}`;
  const refresh = `${REFRESH_TOKEN_PREFIX}${randomToken(40)}`;
  await insertTokenPair(
    trx,
    grantId,
    { hash: hashSecret(access), expiresAt: now + ACCESS_TOKEN_TTL_MS },
    { hash: hashSecret(refresh), expiresAt: now + REFRESH_TOKEN_TTL_MS },
  );
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: Math.floor(ACCESS_TOKEN_TTL_MS / 1000),
    refresh_token: refresh,
  };
}

const invalidGrant = (message: string) => new OAuthError('invalid_grant', message);

/** A failure that must still commit (a grant revoked because a code or refresh token came back). */
class RevokedOnReuse extends Error {
  readonly grantId: string;
  readonly failure: OAuthError;
  constructor(grantId: string, failure: OAuthError) {
    super(failure.message);
    this.grantId = grantId;
    this.failure = failure;
  }
}

/** The token endpoint (RFC 6749 §3.2, §4.1.3, §6; RFC 7636 §4.6; RFC 8707 §2.2). */
export async function token(db: Db, form: FormFields, urls: ServerUrls, now: number): Promise<TokenAnswer> {
  const grantType = required(form, 'grant_type');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
  }
  const clientId = required(form, 'client_id');
  const resource = field(form, 'resource');
  if (resource !== undefined && resource !== urls.resource) {
    throw new OAuthError('invalid_target', `This server issues tokens only for resource "${urls.resource}".`);
  }
  const secret =
    grantType === 'authorization_code' ? required(form, 'code') : required(form, 'refresh_token');
  const redirectUri = grantType === 'authorization_code' ? required(form, 'redirect_uri') : null;
  const verifier = grantType === 'authorization_code' ? required(form, 'code_verifier') : null;
  let revokedGrant: string | null = null;
  try {
    return await inTransaction(db, async (trx) => {
      const grant = (grantId: string) => findGrantWithClient(trx, grantId);
      if (grantType === 'authorization_code') {
        const code = await findCode(trx, hashSecret(secret));
        const found = code && (await grant(code.grant_id));
        if (!code || !found || found.revoked_at !== null)
          throw invalidGrant('This authorization code is not valid: unknown, revoked or already used.');
        if (found.client_id !== clientId)
          throw invalidGrant('This authorization code was issued to another client.');
        if (code.used_at !== null) {
          // RFC 6749 §4.1.2: a code used twice revokes what it gave.
          throw new RevokedOnReuse(
            found.id,
            invalidGrant('This authorization code was already used; the access it gave is revoked.'),
          );
        }
        if (code.expires_at <= now)
          throw invalidGrant('This authorization code has expired; authorize again.');
        if (redirectUri !== found.redirect_uri)
          throw invalidGrant('redirect_uri differs from the one of the authorization request.');
        if (!verifier || !VERIFIER.test(verifier)) {
          throw new OAuthError(
            'invalid_request',
            'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.',
          );
        }
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (!sameSecret(challenge, code.code_challenge))
          throw invalidGrant('code_verifier does not match the code_challenge (PKCE).');
        if (!(await markCodeUsed(trx, code.code_hash, now)))
          throw invalidGrant('This authorization code was already used.');
        return issueTokens(trx, found.id, now);
      }
      const row = await findRefreshToken(trx, hashSecret(secret));
      const found = row && (await grant(row.grant_id));
      if (!row || !found || found.revoked_at !== null)
        throw invalidGrant('This refresh token is not valid: unknown or revoked.');
      if (found.client_id !== clientId)
        throw invalidGrant('This refresh token was issued to another client.');
      if (row.used_at !== null) {
        // A rotated refresh token came back: someone holds a copy. Revoke the grant (OAuth 2.1 §4.3.1).
        throw new RevokedOnReuse(
          found.id,
          invalidGrant(
            'This refresh token was already used (rotated); the grant is revoked. Authorize again.',
          ),
        );
      }
      if (row.expires_at <= now) throw invalidGrant('This refresh token has expired; authorize again.');
      if (!(await markRefreshUsed(trx, row.token_hash, now)))
        throw invalidGrant('This refresh token was already used.');
      return issueTokens(trx, found.id, now);
    });
  } catch (err) {
    if (!(err instanceof RevokedOnReuse)) throw err;
    await inTransaction(db, (trx) => revokeGrantRows(trx, err.grantId, now));
    revokedGrant = err.grantId;
    throw err.failure;
  } finally {
    if (revokedGrant) forgetApiKey(revokedGrant);
  }
}
