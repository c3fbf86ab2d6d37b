/**
 * Exports of a farm's animals, events and tasks and of a device's readings, as CSV or NDJSON, streamed: the
 * records are read in keyset-paged queries (one page at a time, never the whole set) and each page is
 * turned into one chunk of text that the reply stream pulls only as fast as the client reads it.
 */
import { Readable } from 'node:stream';
import type { TObject } from 'typebox';
import { MAX_PAGE_SIZE, type Page, type PageRequest, parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { invalid } from '../../domain/errors.ts';
import { parseIso } from '../../lib/time.ts';
import { animalPage } from '../animals/repository.ts';
import { AnimalSchema } from '../animals/schemas.ts';
import { eventPage } from '../events/repository.ts';
import { EventSchema } from '../events/schemas.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { selectReadings, toReading } from '../readings/repository.ts';
import { ReadingSchema } from '../readings/schemas.ts';
import { loadScoped } from '../records/scoped.ts';
import { taskPage } from '../tasks/repository.ts';
import { TaskSchema } from '../tasks/schemas.ts';
import { csvCell, csvLines } from './csv.ts';
import { EXPORT_CONTENT_TYPES, type ExportFormat, type ReadingsExportQueryInput } from './schemas.ts';

export const RECORD_EXPORT_KINDS = ['animals', 'events', 'tasks'] as const;
export type RecordExportKind = (typeof RECORD_EXPORT_KINDS)[number];
export type ExportKind = RecordExportKind | 'readings';

/** Readings per query: large enough that a 5-million-reading export is a thousand queries. */
export const READINGS_EXPORT_PAGE = 5_000;

/** The columns of each export: the API object's members, in schema order (readings add device_id). */
export const EXPORT_COLUMNS: Readonly<Record<ExportKind, readonly string[]>> = {
  animals: columnsOf(AnimalSchema),
  events: columnsOf(EventSchema),
  tasks: columnsOf(TaskSchema),
  readings: ['device_id', ...columnsOf(ReadingSchema)],
};

function columnsOf(schema: TObject): string[] {
  return Object.keys(schema.properties);
}

export interface ExportStream {
  filename: string;
  contentType: string;
  /** Chunks of the file's text; pulled one page at a time. */
  chunks: AsyncIterable<string>;
  /** Counts records as they are written (for progress). */
  written(): number;
}

/** Walks a paged list to its end, one page at a time. */
export async function* pagesOf<T>(
  fetch: (page: PageRequest) => Promise<Page<T>>,
  size = MAX_PAGE_SIZE,
): AsyncGenerator<T[]> {
  let page = parsePage({ limit: size });
  for (;;) {
    const result = await fetch(page);
    if (result.data.length > 0) yield result.data;
    if (!result.next_before) return;
    page = parsePage({ limit: size, before: result.next_before });
  }
}

function stamp(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

function build(
  kind: ExportKind,
  owner: string,
  format: ExportFormat,
  pages: AsyncIterable<Record<string, unknown>[]>,
  now: number,
): ExportStream {
  return buildExport(kind, EXPORT_COLUMNS[kind], owner, format, pages, now);
}

/** An export's file: CSV with these columns (a header, then a row per record), or one JSON object a line. */
export function buildExport(
  kind: string,
  columns: readonly string[],
  owner: string,
  format: ExportFormat,
  pages: AsyncIterable<Record<string, unknown>[]>,
  now: number,
): ExportStream {
  let count = 0;
  async function* chunks(): AsyncGenerator<string> {
    if (format === 'csv') yield csvLines([columns]);
    for await (const records of pages) {
      count += records.length;
      if (format === 'csv') yield csvLines(records.map((r) => columns.map((c) => csvCell(r[c]))));
      else yield `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
    }
  }
  return {
    filename: `${owner}-${kind}-${stamp(now)}.${format}`,
    contentType: EXPORT_CONTENT_TYPES[format],
    chunks: chunks(),
    written: () => count,
  };
}

/**
 * A farm's animals, events or tasks, newest first (as the lists order them). The farm is checked before
 * the stream is returned, so a farm the caller cannot see is a clean 404, never a broken stream.
 */
export async function exportFarmRecords(
  db: Db,
  scope: Scope,
  farmId: string,
  kind: RecordExportKind,
  format: ExportFormat = 'csv',
  now: number = Date.now(),
): Promise<ExportStream> {
  const farm = await requireFarm(db, scope, farmId);
  const fetchers: Record<RecordExportKind, (page: PageRequest) => Promise<Page<Record<string, unknown>>>> = {
    animals: (page) => animalPage(db, farm.id, {}, page),
    events: (page) => eventPage(db, farm.id, {}, page, scope.policy),
    tasks: (page) => taskPage(db, farm.id, {}, page),
  };
  return build(kind, farm.id, format, pagesOf(fetchers[kind]), now);
}

/**
 * A device's raw readings, newest first, optionally one metric and a time range (since inclusive, until
 * exclusive). Readings have no id: the cursor is the last time written plus how many readings of that
 * millisecond were written already (they come in a fixed order).
 */
export async function exportDeviceReadings(
  db: Db,
  scope: Scope,
  deviceId: string,
  query: ReadingsExportQueryInput,
  now: number = Date.now(),
): Promise<ExportStream> {
  const device = await loadScoped(db, scope, 'device', deviceId);
  const since = query.since === undefined ? undefined : parseIso(query.since);
  const until = query.until === undefined ? undefined : parseIso(query.until);
  if (since === null) throw invalid('since', 'since must be an ISO 8601 date or date-time.');
  if (until === null) throw invalid('until', 'until must be an ISO 8601 date or date-time.');
  if (since !== undefined && until !== undefined && until <= since) {
    throw invalid('until', 'until must be later than since.');
  }
  const from = since ?? undefined;
  const to = until ?? undefined;
  async function* pages(): AsyncGenerator<Record<string, unknown>[]> {
    let before = to;
    let skip = 0;
    for (;;) {
      const rows = await selectReadings(db, {
        deviceId: device.id,
        metric: query.metric,
        since: from,
        before,
        skip,
        limit: READINGS_EXPORT_PAGE,
      });
      if (rows.length === 0) return;
      yield rows.map((r) => ({ device_id: device.id, ...toReading(r) }));
      if (rows.length < READINGS_EXPORT_PAGE) return;
      const lastAt = Number((rows.at(-1) as { at: number }).at);
      const atLast = rows.filter((r) => Number(r.at) === lastAt).length;
      // Next page: at <= lastAt, past the readings of lastAt already written.
      skip = before === lastAt + 1 ? skip + atLast : atLast;
      before = lastAt + 1;
    }
  }
  return build('readings', device.id, query.format ?? 'csv', pages(), now);
}

/** The export as a byte stream with backpressure: the next page is read only when the consumer wants more. */
export function exportReadable(stream: ExportStream): Readable {
  async function* bytes() {
    for await (const chunk of stream.chunks) yield Buffer.from(chunk, 'utf8');
  }
  return Readable.from(bytes(), { objectMode: false });
}
