/**
 * The Settings page's Usage section: the account's calls by day, charted (uPlot, through chart.ts). Its own
 * module, loaded when the section is opened, so the other sections of Settings load no chart code.
 */
import { api } from './api.ts';
import { TimeChart } from './chart.ts';
import { t } from './i18n.ts';
import { html, useMemo } from './lib.ts';
import { Loading, useLoad } from './ui.ts';

export function Usage() {
  const usage = useLoad(() => api('GET', '/v1/usage'), []);
  const series = useMemo(() => {
    const days = usage.data?.days ?? [];
    return (['api', 'ingest', 'mcp'] as const).map((s) => ({
      label: s,
      points: days.map((d) => ({ at: `${d.day}T00:00:00.000Z`, value: d[s] })),
    }));
  }, [usage.data]);
  if (!usage.data) return html`<${Loading} error=${usage.error} retry=${usage.reload} />`;
  const totals = usage.data.totals;
  return html`<section class="panel" aria-labelledby="usage-title">
    <h2 id="usage-title">${t('usage.title')}</h2>
    <p>${t('usage.totals', { count: totals.total, api: totals.api, ingest: totals.ingest, mcp: totals.mcp })}</p>
    <${TimeChart} series=${series} label=${t('usage.chart')} height=${200} />
  </section>`;
}
