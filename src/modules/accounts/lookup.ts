/**
 * The operator's reads of accounts (the CLI's `accounts list`, and the `--account` check of `keys`, `farms` and
 * `people`). Apart from service.ts, whose `createAccount` seeds a sample farm through most of the service: a
 * command that only reads loads about 460 modules instead of about 1,080, and starts in two thirds of the time.
 */
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { notFound } from '../../domain/errors.ts';
import { type AccountSummary, allAccounts, findAccount, toAccountSummary } from './repository.ts';

/** Every account, newest first (operators only: the CLI; no API route lists other accounts). */
export async function listAccounts(db: Db, page: PageRequest): Promise<Page<AccountSummary>> {
  return fetchPage(allAccounts(db), page, toAccountSummary);
}

/** The account, or `not_found` (the CLI checks an `--account` before acting for it). */
export async function requireAccount(db: Db, accountId: string): Promise<AccountSummary> {
  const row = await findAccount(db, accountId);
  if (!row) throw notFound('account', accountId);
  return toAccountSummary(row);
}
