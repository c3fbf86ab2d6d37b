/**
 * A chart's drawing (uPlot: small, fast, made for time series), loaded by web/chart.ts once the chart comes
 * into view, so a page whose first screen shows no chart does not load uPlot (about 20 KB) with it. Threshold
 * lines (an alert rule's watch and urgent values) are drawn across the plot as dashed horizontal lines; points
 * and thresholds in the reader's units, the y axis and the legend labelled in them, the legend's values in the
 * reader's locale; the times on the x axis and in the legend in the reader's locale too ("28 nov", "15:00",
 * the console's 24-hour clock; uPlot's own are US-style whatever the language) and in the farm's time zone, as the rest of the page.
 */
// First: uPlot reads navigator.language as it loads, and must not meet a tag Intl refuses.
import './language.ts';
import uPlot from 'uplot';
import { CLOCK, MOMENT, num, reader, shown, t, unitLabel } from './i18n.ts';
import { linkStyleSheet } from './lib.ts';

// uPlot's own style sheet, served beside the library (vendor/uplot.css at the same asset version).
linkStyleSheet(new URL('../../../../vendor/uplot.css', import.meta.url));

const COLOURS = ['#2f6b3a', '#285a8a', '#8a5300', '#6b2f6b', '#b3261e'];
const LINE_COLOURS = { watch: '#8a5300', urgent: '#b3261e' };

/** What a chart draws (web/chart.ts re-exports these for the pages). */
export interface Threshold {
  value: number;
  kind: 'watch' | 'urgent';
  label: string;
}

export interface Point {
  at: string;
  value: number | null;
}

export interface Series {
  label: string;
  /** The catalog unit of the points (the API's: °C, kg, L…); shown in the reader's. */
  unit?: string | null | undefined;
  points: readonly Point[];
}

/** A catalog value in the reader's unit (unchanged without a unit). */
function inReaderUnit(value: number, unit: string | null | undefined): number {
  return unit ? shown(value, unit) : value;
}

/** Draws the given threshold lines over the plot area. */
function thresholdPlugin(lines: readonly Threshold[]): uPlot.Plugin {
  return {
    hooks: {
      draw: [
        (u) => {
          const { ctx } = u;
          const { left, width } = u.bbox;
          ctx.save();
          ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
          ctx.lineWidth = 1.5 * devicePixelRatio;
          for (const line of lines) {
            const y = u.valToPos(line.value, 'y', true);
            if (!Number.isFinite(y)) continue;
            ctx.strokeStyle = LINE_COLOURS[line.kind] ?? '#56605a';
            ctx.beginPath();
            ctx.moveTo(left, y);
            ctx.lineTo(left + width, y);
            ctx.stroke();
          }
          ctx.restore();
        },
      ],
    },
  };
}

export interface Plotted {
  series: readonly Series[];
  thresholds: readonly Threshold[];
  height: number;
  span?: readonly [number, number] | null | undefined;
  /** The zone the times are written in (the farm's); the browser's without one. */
  timezone?: string | undefined;
}

const MINUTE = 60;
const DAY = 86_400;

/** A date formatter in the reader's locale and `zone`; English, then the browser's zone, where Intl refuses. */
function dateFormat(options: Intl.DateTimeFormatOptions, zone: string | undefined): Intl.DateTimeFormat {
  for (const [locale, timeZone] of [
    [reader.locale, zone],
    ['en', zone],
  ]) {
    try {
      return new Intl.DateTimeFormat(locale, { ...options, timeZone });
    } catch {}
  }
  return new Intl.DateTimeFormat('en', options);
}

/**
 * The x axis' tick labels, by the ticks' increment (seconds): years, short months ("nov"), days ("28 nov"),
 * times on the console's 24-hour clock ("15:00", as `farmTime` writes them in every locale); a tick whose day (or, for months, year) differs from
 * the tick before it gets it on a second line, so a 24-hour chart says where midnight is.
 */
function timeTicks(zone: string | undefined): uPlot.Axis.DynamicValues {
  const year = dateFormat({ year: 'numeric' }, zone);
  const month = dateFormat({ month: 'short' }, zone);
  const day = dateFormat({ day: 'numeric', month: 'short' }, zone);
  const time = dateFormat(CLOCK, zone);
  const seconds = dateFormat({ ...CLOCK, second: '2-digit' }, zone);
  return (_u, splits, _axis, _space, incr) => {
    const [tick, context] =
      incr >= 365 * DAY
        ? [year, null]
        : incr >= 28 * DAY
          ? [month, year]
          : incr >= DAY
            ? [day, null]
            : [incr >= MINUTE ? time : seconds, day];
    let before = '';
    return splits.map((split) => {
      const at = new Date(split * 1000);
      const around = context?.format(at) ?? '';
      const label = around && around !== before ? `${tick.format(at)}\n${around}` : tick.format(at);
      before = around;
      return label;
    });
  };
}

/** uPlot's dates in `zone`, so its ticks fall on the zone's midnights and hours (the browser's without one). */
function zonedDates(zone: string | undefined): ((ts: number) => Date) | undefined {
  if (!zone) return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    return undefined;
  }
  return (ts) => uPlot.tzDate(new Date(ts * 1000), zone);
}

/**
 * Draws the chart into `el`, as wide as `el` and following its width; returns what takes it down again.
 * Thresholds are the metric's: in the unit of the series they are drawn over.
 */
export function drawChart(
  el: HTMLElement,
  { series, thresholds, height, span, timezone }: Plotted,
): () => void {
  const unit = series.find((s) => s.unit)?.unit ?? null;
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => Date.parse(p.at) / 1000)))].sort(
    (a, b) => a - b,
  );
  const index = new Map(times.map((time, i) => [time, i]));
  const columns: (number | null)[][] = [];
  for (const s of series) {
    const values: (number | null)[] = new Array(times.length).fill(null);
    for (const p of s.points)
      values[index.get(Date.parse(p.at) / 1000) ?? 0] =
        p.value === null ? null : inReaderUnit(p.value, s.unit);
    columns.push(values);
  }
  const values = columns.flat().filter((v): v is number => v !== null);
  const lines = thresholds.map((line) => ({ ...line, value: inReaderUnit(line.value, unit) }));
  const limits = [...values, ...lines.map((line) => line.value)];
  const min = Math.min(...limits);
  const max = Math.max(...limits);
  const pad = (max - min || Math.abs(max) || 1) * 0.1;
  const moment = dateFormat(MOMENT, timezone);
  const tzDate = zonedDates(timezone);
  const plot = new uPlot(
    {
      width: el.clientWidth || 320,
      height,
      ...(tzDate && { tzDate }),
      scales: {
        // A lone point (one weighing) gets a few days either side rather than uPlot's years.
        // `span` ([from, to] in ms): the range asked for, however few points it holds.
        x: span
          ? { time: true, range: () => [span[0] / 1000, span[1] / 1000] }
          : times.length > 1
            ? { time: true }
            : { time: true, range: (_u, lo) => [lo - 3 * 86_400, lo + 3 * 86_400] },
        y: { range: () => [min - pad, max + pad] },
      },
      series: [
        // The legend's name for the time axis (uPlot writes "Time" otherwise) and the time under the pointer.
        {
          label: t('chart.time'),
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : moment.format(new Date(v * 1000))),
        },
        ...series.map((s, i) => ({
          label: s.unit ? `${s.label} (${unitLabel(s.unit)})` : s.label,
          // The legend's value under the pointer, in the reader's locale.
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : num(v, 2)),
          stroke: COLOURS[i % COLOURS.length] ?? '#2f6b3a',
          width: 2,
          spanGaps: false,
          points: { show: s.points.length < 60 },
        })),
      ],
      axes: [
        { values: timeTicks(timezone), space: 60 },
        // The value ticks in the reader's locale ("38,9" in Spanish); uPlot's own formatter writes a point.
        {
          size: 56,
          values: (_u: uPlot, splits: number[]) => splits.map((v) => num(v, 2)),
          ...(unit && { label: unitLabel(unit), labelSize: 20 }),
        },
      ],
      plugins: [thresholdPlugin(lines)],
    },
    [times, ...columns],
    el,
  );
  const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth || 320, height }));
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}
