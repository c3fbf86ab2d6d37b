/**
 * The readings a device's rate windows need, kept per process between its reports, so a report reads
 * from the database only what this process has not already seen (BENCHMARKS.md, "Alert rules": reading
 * an hour of each watched metric back with every report was most of what rate rules cost).
 *
 * Why an entry can be trusted: every report stamps a new random token on its device row, in the same
 * UPDATE that locks the row, and keeps the token it replaced (`devices.report_token_prev`). An entry is
 * filed under the token of the report that wrote it and holds, per metric, every stored reading of the
 * device from its `from` on, that report's own included. It is used only by a report whose replaced token
 * is that one: the committed report just before it on this device was the one that wrote the entry, so no
 * reading was stored between them. A report that rolled back never committed its token, so its entry
 * can never be matched; a report handled by another process leaves a token this process never filed.
 * Readings are stored only by reports (the sample farm's too); retention removes none younger than its
 * minimum of a day, and an entry answers only for readings younger than that (RETENTION_SAFE_MS).
 *
 * The map holds at most MAX_DEVICES devices and MAX_READINGS readings, forgetting the longest unused.
 */
import type { IngestedReport } from './report.ts';
import type { ReadingSpan } from './repository.ts';

type Pair = [number, number];

/** Rows younger than this are never removed by retention (its minimum is one day), with an hour's slack. */
export const RETENTION_SAFE_MS = 23 * 3_600_000;
const MAX_DEVICES = 5_000;
const MAX_READINGS = 500_000;

/** A metric's readings from `from` on, and how far back its longest window reaches. */
interface Kept {
  from: number;
  rows: Pair[];
  keepMs: number;
}

interface Entry {
  token: string;
  /** Per metric: every stored reading of the device from `from` on, in time order. */
  metrics: Map<string, Kept>;
  size: number;
}

const entries = new Map<string, Entry>();
let held = 0;

export interface ReportReadings {
  deviceId: string;
  /** The token the report replaced on its device row (null: none, a device's first report). */
  previousToken: string | null;
  /** The report's own token, under which what it leaves is filed. */
  token: string;
  /** The report's receipt time, which bounds what retention may have removed. */
  now: number;
  /** Every reading the report stored, [at, value], by metric (late ones too). */
  stored: ReadonlyMap<string, readonly Pair[]>;
}

/**
 * Whether `list` is in time order already, as a device's report usually is: the engine then sorts a
 * report's readings only when they are not.
 */
export function inTimeOrder<T>(list: readonly T[], at: (item: T) => number): boolean {
  for (let i = 1; i < list.length; i++) if (at(list[i] as T) < at(list[i - 1] as T)) return false;
  return true;
}

/** What this module needs of a report (null: the report carries no token, as in some tests). */
export function reportReadingsOf(report: IngestedReport): ReportReadings | null {
  const token = report.device.report_token;
  if (!token) return null;
  const stored = new Map<string, Array<[number, number]>>();
  for (const r of report.readings) {
    const list = stored.get(r.metric) ?? [];
    list.push([r.at, r.value]);
    stored.set(r.metric, list);
  }
  for (const list of stored.values()) {
    if (!inTimeOrder(list, (p) => p[0])) list.sort((a, b) => a[0] - b[0]);
  }
  return {
    deviceId: report.device.id,
    previousToken: report.device.report_token_prev ?? null,
    token,
    now: report.receivedAt,
    stored,
  };
}

/**
 * A span's stored readings as this process knows them, the report's own merged in, in time order; null
 * when it does not know them all (another process or a rolled-back report came between, a span reaching
 * further back than what is kept, or a metric not kept).
 */
export function knownReadings(report: ReportReadings, span: ReadingSpan): Pair[] | null {
  if (report.previousToken === null || span.from < report.now - RETENTION_SAFE_MS) return null;
  const entry = entries.get(report.deviceId);
  if (!entry || entry.token !== report.previousToken) return null;
  const kept = entry.metrics.get(span.metric);
  if (!kept || kept.from > span.from) return null;
  return merge(kept.rows, report.stored.get(span.metric) ?? []);
}

/**
 * Files what this report leaves under its token: the spans it read (each from its `from`, the report's
 * readings included, which is how both knownReadings and the database give them), and the metrics the
 * previous entry kept that still hold (the report's readings merged in). Each metric keeps only what the
 * next report of the device can ask for with the same windows: its next window ends no earlier than this
 * report's latest reading of the metric, so nothing older than that minus its longest window (`keepMs`) is needed.
 */
export function rememberReadings(
  report: ReportReadings,
  spans: ReadonlyArray<{ span: ReadingSpan & { keepMs: number }; rows: Pair[] }>,
): void {
  const metrics = new Map<string, Kept>();
  const previous = entries.get(report.deviceId);
  if (previous && previous.token === report.previousToken) {
    for (const [metric, kept] of previous.metrics) {
      const rows = merge(kept.rows, report.stored.get(metric) ?? []);
      metrics.set(metric, trimmed(kept.from, rows, kept.keepMs));
    }
  }
  for (const { span, rows } of spans) metrics.set(span.metric, trimmed(span.from, rows, span.keepMs));
  forget(report.deviceId);
  let size = 0;
  for (const kept of metrics.values()) size += kept.rows.length;
  if (size === 0 || size > MAX_READINGS / 10) return;
  entries.set(report.deviceId, { token: report.token, metrics, size });
  held += size;
  while (entries.size > MAX_DEVICES || held > MAX_READINGS) forget(entries.keys().next().value ?? '');
}

/** A metric's readings without those its windows can no longer reach (older than the latest - keepMs). */
function trimmed(from: number, rows: Pair[], keepMs: number): Kept {
  const latest = rows.at(-1)?.[0] ?? from;
  const start = Math.max(from, latest - keepMs);
  let first = 0;
  while (first < rows.length && (rows[first] as Pair)[0] < start) first++;
  return { from: start, rows: first === 0 ? rows : rows.slice(first), keepMs };
}

function forget(deviceId: string): void {
  const entry = entries.get(deviceId);
  if (!entry) return;
  held -= entry.size;
  entries.delete(deviceId);
}

/** Two runs of readings in time order, as one (a report's own readings are few: a plain merge). */
function merge(a: readonly Pair[], b: readonly Pair[]): Pair[] {
  if (b.length === 0) return a as Pair[];
  const out: Pair[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x[0] <= y[0])) {
      out.push(x as Pair);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  return out;
}

/** For tests: forget everything (as a new process would start). */
export function clearRecentReadings(): void {
  entries.clear();
  held = 0;
}

/** For tests: what is kept for a device's metric (null: nothing, or not under this token). */
export function keptReadings(deviceId: string, metric: string): { from: number; rows: Pair[] } | null {
  const kept = entries.get(deviceId)?.metrics.get(metric);
  return kept ? { from: kept.from, rows: kept.rows } : null;
}
