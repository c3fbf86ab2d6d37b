/**
 * CSV both ways: the rows of an import are read by the `csv` project's streaming parser (csv-parse), a
 * record at a time, with the quirks of spreadsheet exports (a BOM, `;` or tab separators, quoted fields, blank lines); the rows of an export
 * are written by `csvLines`, RFC 4180's quoting and nothing else (a general stringifier cost more CPU than
 * the database reads of a 5-million-reading export; csv.test.ts checks csv-parse reads back what it writes).
 *
 * Formula injection (OWASP, "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`,
 * a tab or a carriage return as a formula (`=HYPERLINK("http://evil","x")` typed as an animal's notes, a task's
 * title or sent by a device runs when a farmer or an inspector opens the export). So an export writes such a
 * text cell behind an apostrophe, which spreadsheets take as "this is text", and the import takes it off
 * again (`importedCell`), so an export imports as it was. Numbers (JSON numbers: -5) are written as they are.
 */
import { Readable } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { invalid } from '../../domain/errors.ts';

/**
 * Text a spreadsheet would run as a formula, written as it is: it starts with `=`, `+`, `-`, `@`, a tab or a
 * carriage return, after any apostrophes (so text that already starts with an apostrophe before one of them
 * gets one more, and the import, taking one off, gives it back as it was).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** Text as an export writes it: behind an apostrophe when a spreadsheet would run it as a formula. */
function guardedText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One value as a CSV cell: null is empty, objects are JSON text (they start with `{` or `[`), times are already
 * ISO strings, numbers and booleans as JSON writes them (-5 stays -5), other text guarded (`guardedText`).
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return guardedText(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * A cell of an imported file as the value it stands for: the apostrophe an export put before a formula
 * character taken off (one apostrophe, when what follows it starts as a formula would); any other cell as it
 * is. The inverse of `csvCell` on text, so an export imports unchanged.
 */
export function importedCell(cell: string): string {
  return cell.charAt(0) === "'" && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}

const NEEDS_QUOTES = /[",\r\n]/;

/** One cell, quoted when it holds a comma, a quote or a line break (its quotes doubled). */
export function csvField(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Rows of cells as CSV text: cells joined by `,`, a `\n` after each row. */
export function csvLines(rows: readonly (readonly string[])[]): string {
  let out = '';
  for (const row of rows) out += `${row.map(csvField).join(',')}\n`;
  return out;
}

const QUOTE = 0x22;
const SEPARATORS = [',', ';', '\t'] as const;

/** Lines above a header that a scale head writes (a session's name, the date): the most skipped (session-file.ts). */
const HEAD_LINES = 21;

/**
 * The separator of a file: whichever of `,` `;` and tab occurs most on one line, outside quotes, among its
 * first lines (`;` is what spreadsheets write where the decimal mark is a comma). Not the first line alone:
 * a scale head's export may start with a line of its own ("2026-06-01 08-15 STEERS") above the header.
 * Default `,`.
 */
export function detectSeparator(text: string): string {
  const most = new Map<string, number>();
  let line = new Map<string, number>();
  let lines = 0;
  let quoted = false;
  const endLine = () => {
    for (const [sep, n] of line) most.set(sep, Math.max(most.get(sep) ?? 0, n));
    line = new Map();
    lines++;
  };
  for (let i = 0; i < text.length && lines < HEAD_LINES; i++) {
    const c = text[i] as string;
    if (c.charCodeAt(0) === QUOTE) quoted = !quoted;
    else if (!quoted && c === '\n') endLine();
    else if (!quoted && (SEPARATORS as readonly string[]).includes(c)) line.set(c, (line.get(c) ?? 0) + 1);
  }
  endLine();
  let best = ',';
  let count = 0;
  for (const sep of SEPARATORS) {
    const n = most.get(sep) ?? 0;
    if (n > count) {
      best = sep;
      count = n;
    }
  }
  return best;
}

export interface CsvRecord {
  /** The line of the file the record ends on (1 is the header). */
  line: number;
  cells: string[];
  /** Bytes of the file read up to the end of this record. */
  bytes: number;
}

/** Bytes handed to the parser at a time: the parser never holds more than one chunk and one record. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The records of CSV bytes, read as a stream: the header row first, then each record as the parser reaches
 * it, so a caller that works through them in batches holds one batch at a time, not the whole file as rows.
 * Blank lines (and rows of only empty cells) are skipped; a row may have any number of cells (the caller
 * names a wrong count per row). A structural fault (a quote never closed, a stray quote) is a 400 naming
 * the line. An empty file yields nothing.
 */
export async function* csvRecords(bytes: Uint8Array, chunkBytes = CHUNK_BYTES): AsyncGenerator<CsvRecord> {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, CHUNK_BYTES));
  const parser = parse({
    delimiter: detectSeparator(head.toString('utf8')),
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
  });
  const chunks = function* () {
    for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
  };
  Readable.from(chunks()).pipe(parser);
  try {
    for await (const parsed of parser as AsyncIterable<{
      record: string[];
      info: { lines: number; bytes: number };
    }>) {
      yield { line: parsed.info.lines, cells: parsed.record, bytes: parsed.info.bytes };
    }
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    const e = err as CsvError & { lines?: number };
    const where = typeof e.lines === 'number' ? `row ${e.lines}: ` : '';
    throw invalid('body', `The CSV could not be read: ${where}${describeCsvError(e)}`);
  }
}

function describeCsvError(err: CsvError): string {
  switch (err.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is never closed (a " is missing).';
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'INVALID_OPENING_QUOTE':
      return `a quote is misplaced: inside a field, write a " as "" and quote the whole field (${err.message}).`;
    default:
      return err.message;
  }
}
