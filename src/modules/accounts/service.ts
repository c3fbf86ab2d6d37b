import type { ApiCaller } from '../../calls/callers.ts';
import type { Database } from '../../db/database.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { notFound } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { toIso } from '../../lib/time.ts';
import { permissionsView } from '../keys/repository.ts';
import { createKey } from '../keys/service.ts';
import { findPerson, toPerson } from '../people/repository.ts';
import { createSampleFarm } from '../sample/service.ts';
import { anyAccount, findAccount, insertAccount, lockFirstAccount } from './repository.ts';

export interface NewAccount {
  account_id: string;
  name: string;
  live_key: string;
  test_key: string;
  sample_farm_id: string;
}

/**
 * Creates an account with one live key, one test key and its own sample farm (test mode), all in one
 * transaction, so an account never exists half-made.
 */
export async function createAccount(db: Db, input: { name: string }): Promise<NewAccount> {
  const run = async (trx: Db): Promise<NewAccount> => {
    const now = Date.now();
    const accountId = newId('account', now);
    await insertAccount(trx, { id: accountId, name: input.name, created_at: now });
    const live = await createKey(trx, accountId, { name: 'Default live key', mode: 'live' }, now);
    const test = await createKey(trx, accountId, { name: 'Default test key', mode: 'test' }, now);
    const farm = await createSampleFarm(trx, { accountId, mode: 'test' });
    return {
      account_id: accountId,
      name: input.name,
      live_key: live.key,
      test_key: test.key,
      sample_farm_id: farm.id,
    };
  };
  return inTransaction(db, run);
}

/**
 * On an empty database, creates the first account and returns it (so the server can print its keys
 * once); returns null when any account exists. Several processes starting together create exactly one:
 * on PostgreSQL an advisory lock serialises them, on SQLite the transaction's IMMEDIATE begin does.
 */
export async function bootstrapFirstAccount(database: Database): Promise<NewAccount | null> {
  return inTransaction(database.db, async (trx) => {
    await lockFirstAccount(trx);
    if (await anyAccount(trx)) return null;
    return createAccount(trx, { name: 'My farm account' });
  });
}

export async function getMe(
  db: Db,
  caller: Pick<
    ApiCaller,
    'accountId' | 'keyId' | 'keyName' | 'mode' | 'prefix' | 'grants' | 'farms' | 'session'
  >,
) {
  const account = await findAccount(db, caller.accountId);
  if (!account) throw notFound('account', caller.accountId);
  const accountView = { id: account.id, name: account.name, created_at: toIso(account.created_at) };
  if (caller.session) {
    const person = await findPerson(db, caller.accountId, caller.session.personId);
    if (!person) throw notFound('person', caller.session.personId);
    return { account: accountView, key: null, person: toPerson(person), mode: caller.mode };
  }
  return {
    account: accountView,
    key: {
      id: caller.keyId,
      name: caller.keyName,
      mode: caller.mode,
      prefix: caller.prefix,
      farms: caller.farms === null ? null : [...caller.farms],
      permissions: permissionsView(caller.grants),
    },
    mode: caller.mode,
  };
}
