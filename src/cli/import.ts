/**
 * `import`: animals from a CSV file into a farm, through the same import function as
 * `POST /v1/farms/{farm}/animals/import` (modules/dataio/import.ts): the same columns, matching, dry run and
 * all-or-nothing rule. Exit 0 when every row is fine (or skipped with --skip-invalid), 1 when rows have
 * errors (nothing is imported), 2 for a wrong command line.
 */
import { type Command, Option } from 'commander';
import { farmOption } from './options.ts';
import { printJson, printTable } from './output.ts';

interface ImportOptions {
  farm: string;
  from: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  json?: boolean;
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description(
      'add or update a farm’s animals from a CSV file (the animals export’s columns; docs/data.md)',
    )
    .addOption(farmOption())
    .addOption(new Option('--from <file>', 'the CSV file').makeOptionMandatory())
    .option('--dry-run', 'check every row and say what would happen; store nothing')
    .option('--skip-invalid', 'import the valid rows and skip the rows with errors')
    .option('--json', 'print the result as JSON')
    .action(async (options: ImportOptions) => runImport(options));
}

async function runImport(options: ImportOptions): Promise<void> {
  const { CliFailure, UsageError, progress } = await import('./output.ts');
  const { readFile } = await import('node:fs/promises');
  const { withDatabase } = await import('./database.ts');
  const { importAnimals } = await import('../modules/dataio/import.ts');
  const { farmScopeOf } = await import('../modules/dataio/repository.ts');
  const { IMPORT_BODY_LIMIT_BYTES } = await import('../modules/dataio/schemas.ts');
  const { AppError } = await import('../domain/errors.ts');

  let bytes: Buffer;
  try {
    bytes = await readFile(options.from);
    if (bytes.length > IMPORT_BODY_LIMIT_BYTES) {
      throw new UsageError(
        `${options.from} is larger than an import takes (${IMPORT_BODY_LIMIT_BYTES} bytes).`,
      );
    }
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`Cannot read ${options.from}: ${(err as Error).message}`);
  }
  const bar = progress('import rows');
  const result = await withDatabase(async (database) => {
    const scope = await farmScopeOf(database.db, options.farm);
    if (!scope) throw new CliFailure(`No farm with id "${options.farm}".`);
    return importAnimals(database.db, scope, options.farm, bytes, {
      dryRun: options.dryRun === true,
      skipInvalid: options.skipInvalid === true,
      // The file is read a batch of rows at a time: the bar follows its bytes.
      onProgress: (read, total) => bar.update(read, total),
    }).catch((err: unknown) => {
      if (err instanceof AppError && err.status === 400) throw new CliFailure(err.message);
      throw err;
    });
  });
  const verb = result.dry_run ? 'would be' : '';
  bar.done(
    `${result.rows} rows: ${result.created} ${verb} created, ${result.updated} ${verb} updated, ${result.unchanged} unchanged, ${result.error_count} errors`.replace(
      /\s+/g,
      ' ',
    ),
  );
  if (options.json) printJson(result);
  else if (result.errors.length > 0) {
    printTable(result.errors as unknown as Record<string, unknown>[], ['row', 'column', 'message']);
  }
  // A dry run that found errors is a failure too: the real import would refuse the file.
  if (result.error_count > 0 && !options.skipInvalid) process.exitCode = 1;
}
