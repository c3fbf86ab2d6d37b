/**
 * What CLI commands print: `--json` gives one JSON value on stdout (scripts parse it), otherwise an aligned
 * table for people. Errors go to stderr; exit codes are decided in program.ts.
 */

/** A problem with how the command was called: exit code 2, like a parse error. */
export class UsageError extends Error {}

/** The command ran and failed (a missing account, a refused restore): exit code 1. */
export class CliFailure extends Error {}

/** One line of JSON, whatever its size: `… --json | jq` and line-based readers both work. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** Rows as aligned columns; an empty list says so instead of printing nothing. */
export function printTable(rows: Record<string, unknown>[], columns: string[], empty = '(none)'): void {
  if (rows.length === 0) {
    process.stdout.write(`${empty}\n`);
    return;
  }
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const text = [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))];
  process.stdout.write(`${text.join('\n')}\n`);
}

/** `label  value` lines for one record. */
export function printRecord(record: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  const text = Object.entries(record).map(([k, v]) => `${k.padEnd(width)}  ${v ?? '-'}`);
  process.stdout.write(`${text.join('\n')}\n`);
}

/**
 * Progress of long work on stderr (stdout stays the command's result): one rewritten line on a terminal,
 * otherwise a line every `everyMs` and at the end, so logs of a scheduled backup show it moving.
 */
export function progress(label: string, options: { everyMs?: number; now?: () => number } = {}) {
  const tty = process.stderr.isTTY === true;
  const everyMs = options.everyMs ?? 2_000;
  const now = options.now ?? Date.now;
  let lastAt = Number.NEGATIVE_INFINITY;
  return {
    update(done: number, total: number): void {
      const pct = total > 0 ? Math.floor((done / total) * 100) : 100;
      if (tty) {
        const width = 30;
        const filled = Math.round((pct / 100) * width);
        process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${pct}%`);
        return;
      }
      if (now() - lastAt < everyMs) return;
      lastAt = now();
      process.stderr.write(`${label}: ${pct}% (${done}/${total})\n`);
    },
    done(message: string): void {
      process.stderr.write(tty ? `\r${label}: ${message}\x1b[K\n` : `${label}: ${message}\n`);
    },
  };
}
