/**
 * Time-series charts. Threshold lines (an alert rule's watch and urgent values) are drawn across the plot as
 * dashed horizontal lines; values come in the catalog's units (a series' `unit`, the API's) and the chart
 * shows them in the reader's (issue 45). A visually hidden summary (latest, lowest and highest value of each
 * series) is the chart's text alternative.
 *
 * The drawing (web/chart-plot.ts, with uPlot, about 20 KB) loads when the chart comes into view, as a lazy
 * image does (issue 45's page weight): the figure, its caption, its summary and its lines' legend are there
 * at first paint, and a box of the drawn chart's height (the plot and its legend's fixed rows) holds its place.
 */
import type { Point, Series, Threshold } from './chart-plot.ts';
import { listOf, qty, reader, t } from './i18n.ts';
import { html, useEffect, useRef } from './lib.ts';
import { lazy, useSeen } from './on-demand.ts';
import { farmTime, problemOf } from './ui.ts';

const usePlotting = lazy(() => import('./chart-plot.ts'));

/** A legend row's height (styles.css `.chart-box .u-legend tr`): one row for the time, one per series. */
const LEGEND_ROW = 30;

export type { Point, Series, Threshold } from './chart-plot.ts';

/** Each series' latest, lowest and highest value, in the reader's units: the chart's text alternative. */
function summary(series: readonly Series[], timezone: string | undefined): string[] {
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
        when: farmTime(latest.at, timezone),
        min: qty(Math.min(...values), unit),
        max: qty(Math.max(...values), unit),
      }),
    ];
  });
}

let charts = 0;

/**
 * One chart: `series` all on one y axis, `thresholds` drawn across it, `span` the time range to show
 * ([from, to] in ms; default: the data's), its times in `timezone` (the farm's; default: the browser's). The
 * chart takes its container's width and follows it.
 */
export function TimeChart({
  series,
  thresholds = [],
  label,
  height = 240,
  span,
  timezone,
}: {
  series: readonly Series[];
  thresholds?: readonly Threshold[];
  label: string;
  height?: number;
  span?: readonly [number, number] | null | undefined;
  timezone?: string | undefined;
}) {
  const box = useRef<HTMLDivElement>(null);
  // One id per chart for as long as it is shown (numbered once, on its first render).
  const summaryId = useRef('');
  summaryId.current ||= `chart-summary-${++charts}`;
  const unit = series.find((s) => s.unit)?.unit ?? null;
  const seen = useSeen(box);
  const plotting = usePlotting(seen);
  useEffect(() => {
    const el = box.current;
    if (!el || !plotting.module) return;
    return plotting.module.drawChart(el, { series, thresholds, height, span, timezone });
    // Redrawn when what is drawn changes (the reader's units and language too), not when a parent re-renders
    // with equal (new) arrays.
  }, [
    plotting.module,
    JSON.stringify(series),
    JSON.stringify(thresholds),
    height,
    span?.[0],
    span?.[1],
    timezone,
    reader.units,
    reader.language,
  ]);
  const empty = series.every((s) => s.points.length === 0);
  const said = summary(series, timezone);
  return html`<figure class="chart">
    <figcaption>${label}</figcaption>
    ${empty && html`<p class="muted">${t('chart.empty')}</p>`}
    <div ref=${box} class="chart-box" role="img" aria-label=${t('chart.label', { label })}
      aria-describedby=${said.length > 0 ? summaryId.current : undefined} style=${`min-height: ${height + (series.length + 1) * LEGEND_ROW}px`}></div>
    ${plotting.error && html`<p class="small muted" role="alert">${problemOf(plotting.error).message}</p>`}
    ${said.length > 0 && html`<p id=${summaryId.current} class="chart-summary visually-hidden">${said.join(' ')}</p>`}
    ${
      thresholds.length > 0 &&
      html`<p class="small muted">${t('chart.lines', { lines: listOf(thresholds.map((line) => t('chart.line', { label: line.label, value: qty(line.value, unit) }))) })}</p>`
    }
  </figure>`;
}
