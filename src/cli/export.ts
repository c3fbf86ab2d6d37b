/**
 * `export`: a farm's animals, events or tasks, its medicine record or holding register (the herd book), or a
 * device's readings, as CSV or NDJSON, to a file or
 * stdout, through the same streaming export functions as the API (modules/dataio/export.ts). Progress goes
 * to stderr: a bar on a terminal, a line every few seconds otherwise.
 */
import { type Command, Option } from 'commander';
import { farmOption } from './options.ts';
import { printJson } from './output.ts';

const KINDS = ['animals', 'events', 'tasks', 'readings', 'medicine-record', 'holding-register'] as const;

/** The kinds that take --since and --until. */
const RANGED = new Set<string>(['readings', 'medicine-record', 'holding-register']);

interface ExportOptions {
  farm: string;
  kind: (typeof KINDS)[number];
  device?: string;
  format: 'csv' | 'ndjson';
  out?: string;
  metric?: string;
  since?: string;
  until?: string;
  json?: boolean;
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      "write a farm's animals, events, tasks, medicine record or holding register, or a device's readings, as CSV or NDJSON (docs/data.md)",
    )
    .addOption(farmOption())
    .addOption(new Option('--kind <kind>', 'what to export').choices(KINDS).makeOptionMandatory())
    .option('--device <id>', 'the device, for --kind readings')
    .addOption(new Option('--format <format>', 'file format').choices(['csv', 'ndjson']).default('csv'))
    .option(
      '--out <file>',
      'write to this file, creating its folder (default: stdout); e.g. exports/tasks.csv',
    )
    .option('--metric <name>', 'readings of this metric only')
    .option('--since <time>', 'readings or herd-book records at or after this ISO 8601 time')
    .option('--until <time>', 'readings or herd-book records before this ISO 8601 time')
    .option('--json', 'print a JSON summary (with --out)')
    .action(async (options: ExportOptions) => runExport(options));
}

async function runExport(options: ExportOptions): Promise<void> {
  const { UsageError, CliFailure, progress } = await import('./output.ts');
  if (options.kind === 'readings' && !options.device) {
    throw new UsageError('--kind readings needs --device <id> (one of the farm’s devices).');
  }
  if (options.kind !== 'readings' && (options.device || options.metric)) {
    throw new UsageError('--device and --metric go with --kind readings.');
  }
  if (!RANGED.has(options.kind) && (options.since || options.until)) {
    throw new UsageError('--since and --until go with --kind readings, medicine-record or holding-register.');
  }
  const { createWriteStream, mkdirSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { pipeline } = await import('node:stream/promises');
  const { withDatabase } = await import('./database.ts');
  const { exportDeviceReadings, exportFarmRecords, exportReadable } = await import(
    '../modules/dataio/export.ts'
  );
  const { countExport, farmScopeOf } = await import('../modules/dataio/repository.ts');
  const { parseIso } = await import('../lib/time.ts');

  const summary = await withDatabase(async (database) => {
    const db = database.db;
    const scope = await farmScopeOf(db, options.farm);
    if (!scope) throw new CliFailure(`No farm with id "${options.farm}".`);
    let stream: Awaited<ReturnType<typeof exportFarmRecords>>;
    let total: number;
    if (options.kind === 'readings') {
      const device = await db
        .selectFrom('devices')
        .select(['id', 'farm_id'])
        .where('id', '=', options.device ?? '')
        .executeTakeFirst();
      if (!device || device.farm_id !== options.farm) {
        throw new CliFailure(`No device with id "${options.device}" on farm ${options.farm}.`);
      }
      const query = {
        format: options.format,
        ...(options.metric ? { metric: options.metric } : {}),
        ...(options.since ? { since: options.since } : {}),
        ...(options.until ? { until: options.until } : {}),
      };
      stream = await exportDeviceReadings(db, scope, device.id, query);
      const since = options.since ? parseIso(options.since) : null;
      const until = options.until ? parseIso(options.until) : null;
      total = await countExport(db, {
        kind: 'readings',
        deviceId: device.id,
        ...(options.metric ? { metric: options.metric } : {}),
        ...(since !== null ? { since } : {}),
        ...(until !== null ? { before: until } : {}),
      });
    } else if (options.kind === 'medicine-record' || options.kind === 'holding-register') {
      const { countHerdBookExport } = await import('../modules/dataio/herd-book-repository.ts');
      const { requireFarm } = await import('../modules/farms/access.ts');
      const { exportHoldingRegister, exportMedicineRecord, herdBookRange } = await import(
        '../modules/dataio/herd-book-export.ts'
      );
      const query = {
        format: options.format,
        ...(options.since ? { since: options.since } : {}),
        ...(options.until ? { until: options.until } : {}),
      };
      const run = options.kind === 'medicine-record' ? exportMedicineRecord : exportHoldingRegister;
      stream = await run(db, scope, options.farm, query);
      total = await countHerdBookExport(
        db,
        options.kind,
        options.farm,
        herdBookRange(query, (await requireFarm(db, scope, options.farm)).timezone),
      );
    } else {
      stream = await exportFarmRecords(db, scope, options.farm, options.kind, options.format);
      total = await countExport(db, { kind: options.kind, farmId: options.farm });
    }
    const bar = progress(`export ${options.kind}`);
    const timer = setInterval(() => bar.update(stream.written(), total), 250);
    try {
      // `--out exports/tasks.csv` on a fresh checkout: the folder the guide names may not exist yet.
      if (options.out) mkdirSync(dirname(options.out), { recursive: true });
      const out = options.out ? createWriteStream(options.out) : process.stdout;
      const source = exportReadable(stream);
      if (options.out) await pipeline(source, out);
      else await pipeline(source, out, { end: false });
    } finally {
      clearInterval(timer);
    }
    bar.update(stream.written(), total);
    bar.done(`${stream.written()} ${options.kind}${options.out ? ` written to ${options.out}` : ''}`);
    return { kind: options.kind, format: options.format, rows: stream.written(), out: options.out ?? null };
  });
  if (options.out && options.json) printJson(summary);
}
