/**
 * API keys from the operator's side: the way back in for an owner who lost every key (the API needs a key
 * to make one). Same service as POST /v1/keys; the new key is printed once and only its hash is kept.
 */
import { type Command, Option } from 'commander';
import { accountOption } from './options.ts';
import { printJson, printRecord, printTable } from './output.ts';

/** Loaded when a command runs, so `--help` does not load the whole service. */
const load = async () => ({
  ...(await import('./database.ts')),
  ...(await import('../modules/keys/service.ts')),
  requireAccount: (await import('../modules/accounts/lookup.ts')).requireAccount,
});

/** The operator acts as the account's owner: every family, every farm, both modes. */
const asOwner = async (accountId: string) => ({
  accountId,
  mode: 'live' as const,
  grants: (await import('../domain/permissions.ts')).FULL_ACCESS,
  farms: null,
});

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description("list, create and revoke an account's API keys");

  keys
    .command('list')
    .description("the account's active keys (prefixes only; keys are never stored)")
    .addOption(accountOption())
    .option('--json', 'print JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const { allPages, listKeys, requireAccount, withDatabase } = await load();
      const rows = await withDatabase(async (database) => {
        await requireAccount(database.db, options.account);
        const owner = await asOwner(options.account);
        return allPages((page) => listKeys(database.db, owner, page));
      });
      if (options.json) printJson(rows);
      else
        printTable(
          rows as unknown as Record<string, unknown>[],
          ['id', 'name', 'mode', 'prefix', 'created_at', 'last_used_at'],
          '(no active keys)',
        );
    });

  keys
    .command('create')
    .description('issue a new key; prints it once')
    .addOption(accountOption())
    .addOption(new Option('--mode <mode>', 'live or test').choices(['live', 'test']).default('live'))
    .option('--name <name>', "the key's name", 'Operator-issued key')
    .option('--json', 'print JSON')
    .action(async (options: { account: string; mode: 'live' | 'test'; name: string; json?: boolean }) => {
      const { createKey, requireAccount, withDatabase } = await load();
      const key = await withDatabase(async (database) => {
        await requireAccount(database.db, options.account);
        return createKey(database.db, options.account, { name: options.name, mode: options.mode });
      });
      if (options.json) printJson(key);
      else {
        printRecord({ id: key.id, name: key.name, mode: key.mode, key: key.key });
        process.stderr.write('Store this key now: only its hash is kept, so it cannot be shown again.\n');
      }
    });

  keys
    .command('revoke')
    .description('revoke a key at once (the last live key is refused: create another first)')
    .argument('<key-id>', 'the key (key_…)')
    .addOption(accountOption())
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: { account: string; json?: boolean }) => {
      const { revokeKey, withDatabase } = await load();
      const result = await withDatabase(async (database) =>
        revokeKey(database.db, await asOwner(options.account), keyId),
      );
      if (options.json) printJson(result);
      else printRecord({ revoked: result.id, at: result.revoked_at });
    });
}
