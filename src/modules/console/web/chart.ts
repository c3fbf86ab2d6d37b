/**
 * Time-series charts (uPlot: small, fast, made for time series). Only the pages that draw a chart import
 * this module, so uPlot is not part of any other page's load. Threshold lines (an alert rule's watch and
 * urgent values) are drawn across the plot as dashed horizontal lines.
 *
 * Values come in the catalog's units (a series' `unit`, the API's); the chart shows them in the reader's
 * (issue 45): points and thresholds converted with `shown`, the y axis and the legend labelled with
 * `unitLabel`, the legend's values in the reader's locale. A visually hidden summary (latest, lowest and
 * highest value of each series) is the chart's text alternative.
 */
// First: uPlot reads navigator.language as it loads, and must not meet a tag Intl refuses.
import './language.ts';
import uPlot from 'uplot';
import { num, qty, reader, shown, t, unitLabel } from './i18n.ts';
import { html, useEffect, useRef } from './lib.ts';
import { farmTime } from './ui.ts';

// uPlot's own style sheet, served beside the library (vendor/uplot.css at the same asset version).
const sheet = document.createElement('link');
sheet.rel = 'stylesheet';
sheet.href = new URL('../../../../vendor/uplot.css', import.meta.url).href;
document.head.append(sheet);

const COLOURS = ['#2f6b3a', '#285a8a', '#8a5300', '#6b2f6b', '#b3261e'];
const LINE_COLOURS = { watch: '#8a5300', urgent: '#b3261e' };

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

/** "a, b and c" in the reader's language. */
function list(items: string[]): string {
  try {
    return new Intl.ListFormat(reader.locale, { type: 'conjunction' }).format(items);
  } catch {
    return items.join(', ');
  }
}

/** A catalog value in the reader's unit (unchanged without a unit). */
function inReaderUnit(value: number, unit: string | null | undefined): number {
  return unit ? shown(value, unit) : value;
}

/** Each series' latest, lowest and highest value, in the reader's units: the chart's text alternative. */
function summary(series: readonly Series[]): string[] {
  return series.flatMap((s) => {
    const points = s.points.filter((p): p is Point & { value: number } => p.value !== null);
    const latest = points.at(-1);
    if (!latest) return [];
    const values = points.map((p) => p.value);
    const unit = s.unit || null;
    return [
      t('chart.summary', {
        series: s.label,
        value: qty(latest.value, unit),
        when: farmTime(latest.at, undefined),
        min: qty(Math.min(...values), unit),
        max: qty(Math.max(...values), unit),
      }),
    ];
  });
}

let charts = 0;

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

/**
 * One chart: `series` all on one y axis, `thresholds` drawn across it, `span` the time range to show
 * ([from, to] in ms; default: the data's). The chart takes its container's width and follows it.
 */
export function TimeChart({
  series,
  thresholds = [],
  label,
  height = 240,
  span,
}: {
  series: readonly Series[];
  thresholds?: readonly Threshold[];
  label: string;
  height?: number;
  span?: readonly [number, number] | null | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  // One id per chart for as long as it is shown (numbered once, on its first render).
  const summaryId = useRef('');
  summaryId.current ||= `chart-summary-${++charts}`;
  // Thresholds are the metric's: in the unit of the series they are drawn over.
  const unit = series.find((s) => s.unit)?.unit ?? null;
  useEffect(() => {
    const el = box.current;
    if (!el) return;
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
    const plot = new uPlot(
      {
        width: el.clientWidth || 320,
        height,
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
          // The legend's name for the time axis (uPlot writes "Time" otherwise).
          { label: t('chart.time') },
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
        axes: [{}, unit ? { size: 56, label: unitLabel(unit), labelSize: 20 } : { size: 56 }],
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
    // Redrawn when what is drawn changes (the reader's units and language too), not when a parent re-renders
    // with equal (new) arrays.
  }, [
    JSON.stringify(series),
    JSON.stringify(thresholds),
    height,
    span?.[0],
    span?.[1],
    reader.units,
    reader.language,
  ]);
  const empty = series.every((s) => s.points.length === 0);
  const said = summary(series);
  return html`<figure class="chart">
    <figcaption>${label}</figcaption>
    ${empty && html`<p class="muted">${t('chart.empty')}</p>`}
    <div ref=${box} class="chart-box" role="img" aria-label=${t('chart.label', { label })}
      aria-describedby=${said.length > 0 ? summaryId.current : undefined}></div>
    ${said.length > 0 && html`<p id=${summaryId.current} class="chart-summary visually-hidden">${said.join(' ')}</p>`}
    ${
      thresholds.length > 0 &&
      html`<p class="small muted">${t('chart.lines', { lines: list(thresholds.map((line) => t('chart.line', { label: line.label, value: qty(line.value, unit) }))) })}</p>`
    }
  </figure>`;
}
