/**
 * The Settings page's Usage section: the account's calls over the last 90 days, and a bar for each day with its
 * API, device-report and MCP calls stacked, in its place on the 90 days (today at the right). The bars are an SVG drawn here, with no chart library: a day's
 * count is a height, and the section is on the page's first screen, where uPlot (20 KB) would weigh on the page's
 * first load (issue 45's page weight). Its own module, loaded when the section is opened. For a screen reader
 * the figure is an image named by its caption, with the busiest day and each kind's total said.
 */
import { api } from './api.ts';
import { dayOf, num, t, words } from './i18n.ts';
import { html } from './lib.ts';
import { EN, ES } from './messages/settings.ts';
import { Loading, useLoad } from './ui.ts';

const w = words(EN, ES);

interface Day {
  day: string;
  api: number;
  ingest: number;
  mcp: number;
}
const KINDS = [
  { kind: 'api', label: 'usage_api', fill: 'var(--brand)' },
  { kind: 'ingest', label: 'usage_devices', fill: 'var(--watch)' },
  { kind: 'mcp', label: 'usage_mcp', fill: 'var(--info)' },
] as const;
const WIDTH = 320;
/** The days GET /v1/usage covers. */
const SPAN_DAYS = 90;
const DAY_MS = 86_400_000;
const HEIGHT = 140;

/** The days as stacked bars, the busiest day's count at the top left, the first and last day below. */
function UsageBars({ days, label }: { days: readonly Day[]; label: string }) {
  const total = (d: Day) => d.api + d.ingest + d.mcp;
  const busiest = days.reduce<Day | null>((best, d) => (best && total(best) >= total(d) ? best : d), null);
  const max = Math.max(1, busiest ? total(busiest) : 0);
  // The 90 days the totals speak of, today (UTC) at the right: a day without calls has no bar.
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const width = WIDTH / SPAN_DAYS;
  const slot = (d: Day) => SPAN_DAYS - 1 - Math.round((today - Date.parse(`${d.day}T00:00:00Z`)) / DAY_MS);
  const dayAt = (ms: number) => dayOf(new Date(ms + DAY_MS / 2).toISOString(), 'UTC');
  const day = (d: Day) => dayAt(Date.parse(`${d.day}T00:00:00Z`));
  const said =
    busiest && total(busiest) > 0
      ? w('usage_busiest', { day: day(busiest), count: total(busiest) })
      : w('usage_none');
  return html`<figure class="chart usage">
    <figcaption>${label}</figcaption>
    <svg viewBox=${`0 0 ${WIDTH} ${HEIGHT + 18}`} width="100%" role="img" aria-label=${`${label}. ${said}`}>
      ${days.map((d) => {
        const i = slot(d);
        if (i < 0 || i >= SPAN_DAYS) return null;
        let top = HEIGHT;
        return KINDS.map(({ kind, fill }) => {
          const h = (d[kind] / max) * (HEIGHT - 14);
          top -= h;
          return h > 0
            ? html`<rect class=${`usage-${kind}`} x=${(i * width).toFixed(2)} y=${top.toFixed(2)}
                width=${Math.max(width - 0.5, 0.5).toFixed(2)} height=${h.toFixed(2)} style=${`fill: ${fill}`} />`
            : null;
        });
      })}
      <line x1="0" x2=${WIDTH} y1=${HEIGHT} y2=${HEIGHT} style="stroke: var(--line)" />
      <text x="0" y="10" font-size="10" style="fill: var(--muted)">${num(max, 0)}</text>
      <text x="0" y=${HEIGHT + 14} font-size="10" style="fill: var(--muted)">${dayAt(today - (SPAN_DAYS - 1) * DAY_MS)}</text>
      <text x=${WIDTH} y=${HEIGHT + 14} font-size="10" text-anchor="end" style="fill: var(--muted)">${dayAt(today)}</text>
    </svg>
    <p class="small muted">${KINDS.map(
      ({ label: name, fill }) =>
        html`<span class="usage-key"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" style=${`fill: ${fill}`} /></svg> ${w(name)}</span> `,
    )}</p>
  </figure>`;
}

export function Usage() {
  const usage = useLoad(() => api('GET', '/v1/usage'), []);
  if (!usage.data) return html`<${Loading} error=${usage.error} retry=${usage.reload} />`;
  const totals = usage.data.totals;
  return html`<section class="panel" aria-labelledby="usage-title">
    <h2 id="usage-title">${t('usage.title')}</h2>
    <p>${t('usage.totals', { count: totals.total, api: totals.api, ingest: totals.ingest, mcp: totals.mcp })}</p>
    <${UsageBars} days=${usage.data.days} label=${t('usage.chart')} />
  </section>`;
}
