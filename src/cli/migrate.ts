import type { Command } from 'commander';
import { printJson, printTable } from './output.ts';

export function registerMigrate(program: Command): void {
  const migrate = program
    .command('migrate')
    .description('database migrations (the server also runs pending ones when it starts)');

  migrate
    .command('status')
    .description('every migration and when it ran')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { withDatabase } = await import('./database.ts');
      const { migrationStatus } = await import('../db/migrate.ts');
      const rows = await withDatabase((database) => migrationStatus(database.db), { migrate: false });
      if (options.json) printJson(rows);
      else {
        printTable(
          rows.map((r) => ({ ...r, executed_at: r.executed_at ?? 'pending' })),
          ['name', 'executed_at'],
        );
      }
    });

  migrate
    .command('up')
    .description('run the pending migrations')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { withDatabase } = await import('./database.ts');
      const { migrateToLatest } = await import('../db/migrate.ts');
      const ran = await withDatabase((database) => migrateToLatest(database.db), { migrate: false });
      if (options.json) printJson({ applied: ran });
      else
        process.stdout.write(ran.length ? `applied: ${ran.join(', ')}\n` : 'nothing to apply: up to date\n');
    });
}
