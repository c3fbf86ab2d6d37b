/**
 * A chart's drawing (uPlot: small, fast, made for time series), loaded by web/chart.ts once the chart comes
 * into view, so a page whose first screen shows no chart does not load uPlot (about 36 KB) with it. Threshold
 * lines (an alert rule's watch and urgent values) are drawn across the plot as dashed horizontal lines; points
 * and thresholds in the reader's units, the y axis and the legend labelled in them, the legend's values in the
 * reader's locale.
 */
// First: uPlot reads navigator.language as it loads, and must not meet a tag Intl refuses.
import './language.ts';
import uPlot from 'uplot';
import { num, shown, t, unitLabel } from './i18n.ts';

// uPlot's own style sheet, served beside the library (vendor/uplot.css at the same asset version).
const sheet = document.createElement('link');
sheet.rel = 'stylesheet';
sheet.href = new URL('../../../../vendor/uplot.css', import.meta.url).href;
document.head.append(sheet);

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
}

/**
 * Draws the chart into `el`, as wide as `el` and following its width; returns what takes it down again.
 * Thresholds are the metric's: in the unit of the series they are drawn over.
 */
export function drawChart(el: HTMLElement, { series, thresholds, height, span }: Plotted): () => void {
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
}
