import { forgetApiKey } from '../../calls/key-cache.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { hashSecret } from '../../lib/secrets.ts';
import { type FormFields, field, required } from './form-fields.ts';
import { findTokenGrant, revokeGrantRows } from './repository.ts';

/**
 * Revocation (RFC 7009): an access or refresh token ends its grant (the connected agent) and every token of
 * it. An unknown token, or one of another client, is answered the same (200) and changes nothing.
 */
export async function revokeToken(db: Db, form: FormFields, now: number): Promise<void> {
  const secret = required(form, 'token');
  const clientId = field(form, 'client_id');
  const grantId = await inTransaction(db, async (trx) => {
    const row = await findTokenGrant(trx, hashSecret(secret));
    if (!row || (clientId !== undefined && row.client_id !== clientId)) return null;
    await revokeGrantRows(trx, row.id, now);
    return row.id;
  });
  if (grantId) forgetApiKey(grantId);
}
