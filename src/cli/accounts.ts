import type { Command } from 'commander';
import { printJson, printRecord, printTable } from './output.ts';

export function registerAccounts(program: Command): void {
  const accounts = program.command('accounts').description('list and create accounts');

  accounts
    .command('list')
    .description('every account, newest first')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { allPages, withDatabase } = await import('./database.ts');
      const { listAccounts } = await import('../modules/accounts/lookup.ts');
      const rows = await withDatabase((database) => allPages((page) => listAccounts(database.db, page)));
      if (options.json) printJson(rows);
      else
        printTable(
          rows as unknown as Record<string, unknown>[],
          ['id', 'name', 'created_at'],
          '(no accounts)',
        );
    });

  accounts
    .command('create')
    .description('create an account with its sample farm; prints its keys (shown once)')
    .requiredOption('--name <name>', "the account's name")
    .option('--json', 'print JSON')
    .action(async (options: { name: string; json?: boolean }) => {
      const { withDatabase } = await import('./database.ts');
      const { createAccount } = await import('../modules/accounts/service.ts');
      const account = await withDatabase((database) => createAccount(database.db, { name: options.name }));
      const out = {
        account_id: account.account_id,
        live_key: account.live_key,
        test_key: account.test_key,
        sample_farm_id: account.sample_farm_id,
      };
      if (options.json) printJson(out);
      else
        printRecord({
          account: out.account_id,
          'live key': out.live_key,
          'test key': out.test_key,
          'sample farm': out.sample_farm_id,
        });
    });
}
