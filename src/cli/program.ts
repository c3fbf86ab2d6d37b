/**
 * The operator's CLI (`npm run cli -- <command>`), on commander. Each command lives in its own file and
 * registers itself here; add a command by writing `registerX(program)` and listing it in COMMANDS.
 * Exit codes: 0 done, 2 the command line was wrong (or the configuration is), 1 the command failed.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { registerAccounts } from './accounts.ts';
import { registerBackup } from './backup.ts';
import { registerExport } from './export.ts';
import { registerFarms } from './farms.ts';
import { registerImport } from './import.ts';
import { registerKeys } from './keys.ts';
import { registerMigrate } from './migrate.ts';
import { CliFailure, UsageError } from './output.ts';
import { registerPeople } from './people.ts';

export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

type Register = (program: Command) => void;

// serve and worker load the whole service: imported when run, so `--help` and other commands stay quick.
function registerServe(program: Command): void {
  program
    .command('serve')
    .description('run the service: HTTP API, MCP, device ingest and background jobs (npm start)')
    .action(async () => (await import('./serve.ts')).serve());
}

/**
 * The device simulator (src/cli/simulate.ts parses its own options): commander shows the options in help and
 * hands them back as the arguments simulate() reads.
 */
function registerSimulate(program: Command): void {
  const names = [
    'farm',
    'devices',
    'transport',
    'every',
    'speed',
    'hours',
    'from',
    'url',
    'key',
    'seed',
  ] as const;
  program
    .command('simulate')
    .description('simulated devices report to a running service, over HTTP or MQTT, until Ctrl-C (README.md)')
    .option('--farm <id>', 'the farm the devices belong to (required)')
    .option('--devices <n>', 'how many devices (default 9)')
    .option('--transport <http|mqtt>', 'how they report (default http)')
    .option('--every <duration>', 'a report every 10s, 500ms, 2m… (default 10s)')
    .option(
      '--speed <factor>',
      'replay the past this many times faster (default 60), up to now; then real time (never the future)',
    )
    .option('--hours <h>', 'stop after this many simulated hours (sped up: replay the last h hours)')
    .option('--from <iso>', 'replay from this past time (default: the last --hours, else the last day)')
    .option('--url <url>', "the service's address (default http://HOST:PORT)")
    .option('--key <key>', 'an API key (or FARMSTEAD_API_KEY)')
    .option('--seed <n>', 'random seed (default 1)')
    .action(async (options: Partial<Record<(typeof names)[number], string>>) => {
      const args = names.flatMap((name) => (options[name] === undefined ? [] : [`--${name}`, options[name]]));
      const { simulate, SimulateUsageError } = await import('./simulate.ts');
      const { loadConfig } = await import('../config.ts');
      await simulate(args, loadConfig()).catch((err: unknown) => {
        throw err instanceof SimulateUsageError ? new UsageError(err.message) : err;
      });
    });
}

function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('run only the background jobs (webhook delivery…), no HTTP; configured by environment')
    .action(async () => (await import('./worker.ts')).worker());
}

/** In the order `--help` lists them. */
export const COMMANDS: Register[] = [
  registerServe,
  registerWorker,
  registerAccounts,
  registerKeys,
  registerPeople,
  registerFarms,
  registerMigrate,
  registerBackup,
  registerExport,
  registerImport,
  registerSimulate,
];

export function buildProgram(commands: readonly Register[] = COMMANDS): Command {
  const program = new Command('farmstead')
    .usage('<command> [options]   (npm run cli -- <command>; npm start runs `serve`)')
    .description(
      'Farmstead: the farm and ranch platform. Configuration comes from environment variables (README.md).',
    )
    .helpCommand('help [command]', 'show help for a command')
    .showHelpAfterError('(add --help for usage)')
    // Set before the commands are added: subcommands inherit it, so every parse error reaches run().
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help and `help` exit 0; a group called without its subcommand shows help as an error: usage.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    return EXIT.usage;
  }
  if (err instanceof UsageError || err instanceof ConfigError) return EXIT.usage;
  return EXIT.failure;
}

/** Runs the command line; resolves when a one-shot command is done (`serve` and `worker` keep running). */
export async function runCli(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length === 0) {
    // No command prints help and never starts anything.
    process.stdout.write(program.helpInformation());
    return;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const code = exitCodeOf(err);
    if (!(err instanceof CommanderError)) {
      // Commander printed its own message; ours are printed here, a stack only for the unexpected.
      const known =
        err instanceof UsageError ||
        err instanceof ConfigError ||
        err instanceof CliFailure ||
        err instanceof AppError;
      const text = known
        ? (err as Error).message
        : err instanceof Error
          ? (err.stack ?? err.message)
          : String(err);
      process.stderr.write(`${text}\n`);
    }
    process.exitCode = code;
  }
}
