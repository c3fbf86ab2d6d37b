import { type Command, Option } from 'commander';
import { accountOption } from './options.ts';
import { printJson, printTable } from './output.ts';

export function registerFarms(program: Command): void {
  const farms = program.command('farms').description("an account's farms");

  farms
    .command('list')
    .description("the account's farms, live and test (or one mode)")
    .addOption(accountOption())
    .addOption(new Option('--mode <mode>', 'only live or only test farms').choices(['live', 'test']))
    .option('--json', 'print JSON')
    .action(async (options: { account: string; mode?: 'live' | 'test'; json?: boolean }) => {
      const { allPages, withDatabase } = await import('./database.ts');
      const { requireAccount } = await import('../modules/accounts/lookup.ts');
      const { listFarms } = await import('../modules/farms/service.ts');
      const modes = options.mode ? [options.mode] : (['live', 'test'] as const);
      const rows = await withDatabase(async (database) => {
        await requireAccount(database.db, options.account);
        const out = [];
        for (const mode of modes) {
          out.push(
            ...(await allPages((page) => listFarms(database.db, { accountId: options.account, mode }, page))),
          );
        }
        return out;
      });
      if (options.json) printJson(rows);
      else
        printTable(
          rows as unknown as Record<string, unknown>[],
          ['id', 'name', 'mode', 'timezone', 'created_at'],
          '(no farms)',
        );
    });
}
