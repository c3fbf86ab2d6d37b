/**
 * Reading a weigh-session file: the header row (past any lines a vendor writes above it), the mapping of its
 * columns (formats.ts), and each row as {line, eid, tag, kg, at, traits}, streamed through csv-parse
 * (dataio/csv.ts). Rows are checked one by one; a row that cannot be read is kept with its reason, never
 * dropped in silence.
 */

import { readEid } from '../../domain/eid.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { zonedTimeToUtc } from '../../lib/local-time.ts';
import { csvRecords } from '../dataio/csv.ts';
import {
  type ColumnMapping,
  detectFormat,
  guessMapping,
  headerKey,
  looksLikeHeader,
  type SessionFormatName,
  unitOfHeader,
} from './formats.ts';

/** The lines above the header a file may have (a session's name, the indicator's serial). */
const MAX_PREAMBLE_LINES = 20;

/** The largest session file sent (JSON-escaped text): 100,000 rows of a wide export fit. */
export const SESSION_BODY_LIMIT_BYTES = 20 * 1024 * 1024;

/** The most data rows one file may hold. */
export const MAX_SESSION_ROWS = 100_000;

const LB_IN_KG = 0.45359237;

export interface SessionRow {
  line: number;
  eid: string | null;
  tag: string | null;
  kg: number | null;
  at: number | null;
  traits: Record<string, string>;
  /** Why the row cannot be used (no weight, a bad date…), or null. */
  problem: string | null;
}

export interface ReadSession {
  format: SessionFormatName;
  mapping: ColumnMapping;
  unit: 'kg' | 'lb';
  rows: SessionRow[];
}

export interface ReadOptions {
  format?: SessionFormatName | undefined;
  mapping?: ColumnMapping | undefined;
  unit?: 'kg' | 'lb' | undefined;
  dateOrder: 'dmy' | 'mdy';
  /** When rows without a date were weighed. */
  defaultAt: number;
  timezone: string;
}

/** A weight as a file writes it: `512.5`, `512,5` (a decimal comma), with a unit after it or not. */
export function parseWeight(text: string): number | null {
  let t = text.trim().replace(/\s*(kg|kgs|lb|lbs)$/i, '');
  if (/^\d+,\d+$/.test(t)) t = t.replace(',', '.');
  if (!/^\d+(\.\d+)?$/.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** A date as a file writes it: 2026-05-01, 01/05/2026 (dmy or mdy), 1-May-2026, with a time after it or not. */
export function parseSessionDate(
  dateText: string,
  timeText: string | null,
  order: 'dmy' | 'mdy',
  timezone: string,
): number | null {
  const text = dateText.trim();
  let year: number;
  let month: number;
  let day: number;
  let rest = '';
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](.*))?$/.exec(text);
  const numeric = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})(?:\s+(.*))?$/.exec(text);
  const named = /^(\d{1,2})[-\s]([A-Za-z]{3})[a-z]*[-\s](\d{2}|\d{4})(?:\s+(.*))?$/.exec(text);
  if (iso) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    rest = iso[4] ?? '';
  } else if (numeric) {
    const [a, b] = [Number(numeric[1]), Number(numeric[2])];
    [day, month] = order === 'dmy' ? [a, b] : [b, a];
    year = Number(numeric[3]);
    rest = numeric[4] ?? '';
  } else if (named) {
    day = Number(named[1]);
    month = MONTHS.indexOf((named[2] as string).toLowerCase()) + 1;
    year = Number(named[3]);
    rest = named[4] ?? '';
  } else {
    return null;
  }
  if (year < 100) year += 2000;
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const clockText = timeText?.trim() || rest.trim();
  const clock = parseClock(clockText);
  if (clock === null) return null;
  // A time that says its offset (`08:20:00Z`, `08:20+02:00`) is that instant; any other is the farm's clock.
  const offset = /(Z|([+-])(\d{2}):?(\d{2}))$/.exec(clockText);
  const at =
    offset === null
      ? zonedTimeToUtc({ year, month, day, hour: clock.hour, minute: clock.minute }, timezone)
      : Date.UTC(year, month - 1, day, clock.hour, clock.minute) -
        (offset[1] === 'Z'
          ? 0
          : (offset[2] === '-' ? -1 : 1) * (Number(offset[3]) * 60 + Number(offset[4])) * 60_000);
  // A day past the month's end (31/04) rolls over in Date.UTC: refused rather than moved.
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCDate() !== day) return null;
  return at + clock.second * 1000;
}

/** A weight's own members: a trait of the same name would overwrite them (the weight dropped from its history). */
const RESERVED_TRAITS = ['kg', 'source', 'session_id', 'eid', 'tag'];

/** `08:15`, `8:15:30`, `8:15 PM`, or nothing (midnight). */
function parseClock(text: string): { hour: number; minute: number; second: number } | null {
  if (text === '') return { hour: 0, minute: 0, second: 0 };
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*([AaPp][Mm])?$/.exec(
    text.replace(/Z$|[+-]\d{2}:?\d{2}$/, ''),
  );
  if (!m) return null;
  let hour = Number(m[1]);
  const meridiem = m[4]?.toLowerCase();
  if (meridiem === 'pm' && hour < 12) hour += 12;
  if (meridiem === 'am' && hour === 12) hour = 0;
  const minute = Number(m[2]);
  const second = Number(m[3] ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  return { hour, minute, second };
}

/** The header cell a mapping names (loosely, as formats compare), or a 400 naming the mapping's member. */
function columnIndex(header: readonly string[], column: string | undefined, param: string): number | null {
  if (column === undefined) return null;
  const i = header.findIndex((cell) => headerKey(cell) === headerKey(column));
  if (i < 0)
    throw invalid(param, `${param}: the file has no column "${column}" (its columns: ${header.join(', ')}).`);
  return i;
}

/** Reads a session file whole (rows streamed from the parser, kept as small objects). */
export async function readSessionFile(content: string, options: ReadOptions): Promise<ReadSession> {
  let header: string[] | null = null;
  let format: SessionFormatName = 'csv';
  let mapping: ColumnMapping = {};
  let unit: 'kg' | 'lb' = 'kg';
  let columns: {
    eid: number | null;
    tag: number | null;
    kg: number;
    date: number | null;
    time: number | null;
    traits: Array<[string, number]>;
  } | null = null;
  const rows: SessionRow[] = [];
  let preamble = 0;
  try {
    for await (const record of csvRecords(Buffer.from(content, 'utf8'))) {
      const cells = record.cells;
      if (!header || !columns) {
        const mapped = options.mapping?.kg;
        const isHeader = mapped
          ? cells.some((c) => headerKey(c) === headerKey(mapped))
          : looksLikeHeader(cells);
        if (!isHeader) {
          if (++preamble > MAX_PREAMBLE_LINES) break;
          continue;
        }
        header = cells.map((c) => c.trim());
        format = options.format ?? detectFormat(header);
        mapping = options.mapping ?? guessMapping(format, header);
        const kg = columnIndex(header, mapping.kg, 'mapping.kg');
        if (kg === null) throw invalid('mapping.kg', 'Name the weight column: mapping.kg.');
        const eid = columnIndex(header, mapping.eid, 'mapping.eid');
        const tag = columnIndex(header, mapping.tag, 'mapping.tag');
        if (eid === null && tag === null) {
          throw invalid(
            'mapping.eid',
            `Name the column that identifies each animal: mapping.eid or mapping.tag (the file's columns: ${header.join(', ')}).`,
          );
        }
        columns = {
          eid,
          tag,
          kg,
          date: columnIndex(header, mapping.date, 'mapping.date'),
          time: columnIndex(header, mapping.time, 'mapping.time'),
          traits: Object.entries(mapping.traits ?? {}).map(([trait, column]) => {
            if (RESERVED_TRAITS.includes(trait.trim().toLowerCase())) {
              throw invalid(
                `mapping.traits.${trait}`,
                `mapping.traits.${trait}: "${trait}" is a member every weight has (${RESERVED_TRAITS.join(', ')}); name the trait otherwise (e.g. bcs).`,
              );
            }
            return [trait, columnIndex(header as string[], column, `mapping.traits.${trait}`) as number];
          }),
        };
        unit = options.unit ?? unitOfHeader(mapping.kg as string) ?? 'kg';
        continue;
      }
      if (rows.length >= MAX_SESSION_ROWS) {
        throw invalid(
          'content',
          `A session file may hold at most ${MAX_SESSION_ROWS.toLocaleString('en-US')} rows.`,
        );
      }
      rows.push(readRow(record.line, cells, columns, unit, options));
    }
  } catch (err) {
    // The CSV reader names the body; here the file is `content`.
    if (err instanceof AppError && err.param === 'body') throw invalid('content', err.message);
    throw err;
  }
  if (!header && options.mapping?.kg !== undefined) {
    throw invalid(
      'mapping.kg',
      `mapping.kg: no line of the file's head has a column "${options.mapping.kg}".`,
    );
  }
  if (!header) {
    throw invalid(
      'content',
      'No header row naming a weight column was found (e.g. "Weight"): send the file with its header, or a mapping.',
    );
  }
  return { format, mapping, unit, rows };
}

function readRow(
  line: number,
  cells: readonly string[],
  columns: {
    eid: number | null;
    tag: number | null;
    kg: number;
    date: number | null;
    time: number | null;
    traits: Array<[string, number]>;
  },
  unit: 'kg' | 'lb',
  options: ReadOptions,
): SessionRow {
  const cell = (i: number | null) => (i === null ? '' : (cells[i] ?? '').trim());
  const eidText = cell(columns.eid);
  const tag = cell(columns.tag) || null;
  const eid = eidText === '' ? null : readEid(eidText).eid;
  const weightText = cell(columns.kg);
  const raw = weightText === '' ? null : parseWeight(weightText);
  const kg = raw === null ? null : unit === 'lb' ? Math.round(raw * LB_IN_KG * 10) / 10 : raw;
  const dateText = cell(columns.date);
  const timeText = cell(columns.time);
  const at =
    dateText === ''
      ? options.defaultAt
      : parseSessionDate(dateText, timeText || null, options.dateOrder, options.timezone);
  const traits: Record<string, string> = {};
  for (const [trait, i] of columns.traits) {
    const value = cell(i);
    if (value !== '') traits[trait] = value;
  }
  let problem: string | null = null;
  if (eid === null && tag === null) problem = 'No EID or tag.';
  else if (weightText === '') problem = 'No weight.';
  else if (kg === null || kg <= 0) problem = `"${weightText}" is not a weight.`;
  else if (at === null) problem = `"${[dateText, timeText].filter(Boolean).join(' ')}" is not a date.`;
  return { line, eid, tag, kg, at, traits, problem };
}
