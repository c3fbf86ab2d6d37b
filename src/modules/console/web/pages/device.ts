/**
 * One device: charts of its readings (pick metrics and a range; the API aggregates to a bucket sized to the
 * range, so a 30-day chart of a minute-by-minute house is a few hundred points), its alert rule's threshold
 * lines, its key (rotate: the new key is shown once) and its full command history.
 */
import { ruleTitle } from '../../../../domain/alert-terms.ts';
import { metricTerm } from '../../../../domain/metric-terms.ts';
import { api, type Schema } from '../api.ts';
import { type Threshold, TimeChart } from '../chart.ts';
import { typeName } from '../device-type.ts';
import { reader, words } from '../i18n.ts';
import { html, inputValue, useMemo, useRef, useState } from '../lib.ts';
import { EN, ES } from '../messages/devices.ts';
import { lazy, useSeen } from '../on-demand.ts';
import { useReader } from '../reader-hook.ts';
import { can, useStore } from '../store.ts';
import { ActionButton, ago, amount, Loading, useLoad } from '../ui.ts';
import { DeviceKey } from './devices.ts';
import type { PageProps } from './page.ts';

type Device = Schema<'Device'>;
type Rule = Schema<'Rule'>;
type Interval = '1m' | '5m' | '1h' | '1d';

const w = words(EN, ES);
const HOUR = 3_600_000;
const RANGES: [string, string, number][] = [
  ['6h', '6 h', 6 * HOUR],
  ['24h', '24 h', 24 * HOUR],
  ['7d', '7 d', 7 * 24 * HOUR],
  ['30d', '30 d', 30 * 24 * HOUR],
];
/** The API's bucket widths (src/modules/readings/schemas.ts READING_INTERVALS). */
const INTERVALS: [Interval, number][] = [
  ['1m', 60_000],
  ['5m', 300_000],
  ['1h', HOUR],
  ['1d', 24 * HOUR],
];
/** A bucket width in words: "5-minute averages". */
function averagesOf(interval: Interval): string {
  const count = Number.parseInt(interval, 10);
  const unit = interval.endsWith('m') ? 'minutes' : interval.endsWith('h') ? 'hours' : 'days';
  return w(`averages.${unit}`, { count });
}

/** Points per request (the API's most) and per chart (a 30-day chart in hourly buckets is 720). */
const MAX_POINTS = 500;
const CHART_POINTS = 800;

/** The finest bucket that keeps a range within CHART_POINTS points (at most two requests per metric). */
export function intervalFor(spanMs: number): Interval {
  return INTERVALS.find(([, width]) => spanMs / width <= CHART_POINTS)?.[0] ?? '1d';
}

/** One metric's aggregated points in [since, until), oldest first (pages while the API says there is more). */
async function loadSeries(
  deviceId: string,
  metric: string,
  since: string,
  until: string | undefined,
  interval: Interval,
): Promise<Schema<'Reading'>[]> {
  const points: Schema<'Reading'>[] = [];
  let before = until;
  for (let page = 0; page < 4; page++) {
    const res = await api('GET', '/v1/devices/{id}/readings', {
      path: { id: deviceId },
      query: { metric, since, before, interval, agg: 'avg', limit: MAX_POINTS },
    });
    points.push(...res.data);
    if (!res.has_more || res.next_before === null) break;
    before = res.next_before;
  }
  return points.reverse();
}

/** A metric's name in the reader's words (its code for a metric the product does not know). */
const metricName = (metric: string) => metricTerm(reader.language, metric);

/** Metrics sorted by their shown names, as the reader's language sorts. */
function byName(metrics: readonly string[]): string[] {
  const collator = new Intl.Collator([reader.locale, reader.language]);
  return [...metrics].sort((a, b) => collator.compare(metricName(a), metricName(b)));
}

/** The threshold lines of the farm's enabled rules for this metric on this device. */
function thresholdsFor(rules: readonly Rule[], device: Device, metric: string): Threshold[] {
  const lines: Threshold[] = [];
  for (const r of rules) {
    if (!r.enabled || r.metric !== metric) continue;
    if (r.device_type && r.device_type !== device.type) continue;
    if (r.device_id && r.device_id !== device.id) continue;
    // A built-in rule by its title; a farm's own by the name it was given.
    const rule = ruleTitle(reader.language, r.name) ?? r.name;
    if (r.watch !== null && r.watch !== undefined)
      lines.push({ value: r.watch, kind: 'watch', label: w('line_watch', { rule }) });
    if (r.urgent !== null && r.urgent !== undefined)
      lines.push({ value: r.urgent, kind: 'urgent', label: w('line_urgent', { rule }) });
  }
  return lines;
}

function Charts({
  device,
  metrics,
  rules,
  timezone,
}: {
  device: Device;
  metrics: string[];
  rules: Rule[];
  timezone: string;
}) {
  const [chosen, setChosen] = useState(() => metrics.slice(0, 2));
  const [range, setRange] = useState('24h');
  const [custom, setCustom] = useState({ from: '', to: '' });
  const frame = useMemo(() => {
    if (range === 'custom') {
      const from = Date.parse(custom.from);
      const to = custom.to ? Date.parse(custom.to) : Date.now();
      if (!Number.isFinite(from) || !Number.isFinite(to) || from >= to) return null;
      return { since: new Date(from).toISOString(), until: new Date(to).toISOString(), span: to - from };
    }
    const span = RANGES.find(([k]) => k === range)?.[2] ?? 24 * HOUR;
    const now = Date.now();
    return { since: new Date(now - span).toISOString(), until: undefined, span };
  }, [range, custom.from, custom.to]);
  const interval = frame ? intervalFor(frame.span) : null;
  // The chart's time axis: the whole range asked for (stable between renders, so charts are not redrawn).
  const shown = useMemo(
    (): [number, number] | null => frame && [Date.parse(frame.since), Date.parse(frame.since) + frame.span],
    [frame],
  );
  const series = useLoad(async () => {
    if (!frame || !interval) return [];
    return Promise.all(
      chosen.map(async (metric) => {
        const points = await loadSeries(device.id, metric, frame.since, frame.until, interval);
        return { metric, points };
      }),
    );
  }, [device.id, chosen.join(','), frame?.since, frame?.until]);
  const toggle = (metric: string) =>
    setChosen(chosen.includes(metric) ? chosen.filter((m) => m !== metric) : [...chosen, metric]);
  return html`<div class="panel">
    <h2>${w('readings')}</h2>
    <fieldset class="checks"><legend>${w('metrics')}</legend>
      ${metrics.map(
        (m) =>
          html`<label><input type="checkbox" checked=${chosen.includes(m)} onChange=${() => toggle(m)} />${metricName(m)}</label>`,
      )}
    </fieldset>
    <div class="ranges" role="group" aria-label=${w('range')}>
      ${[...RANGES, ['custom', w('custom')]].map(
        ([k, label]) =>
          html`<button type="button" class="tab" aria-pressed=${range === k} onClick=${() => setRange(k)}>${label}</button>`,
      )}
    </div>
    ${
      range === 'custom' &&
      html`<div class="form-grid">
        <div class="field"><label for="range-from">${w('from')}</label>
          <input id="range-from" type="datetime-local" value=${custom.from} onChange=${(e: Event) => setCustom({ ...custom, from: inputValue(e) })} /></div>
        <div class="field"><label for="range-to">${w('to')}</label>
          <input id="range-to" type="datetime-local" value=${custom.to} onChange=${(e: Event) => setCustom({ ...custom, to: inputValue(e) })} /></div>
        ${!frame && html`<p class="error" role="alert">${w('bad_range')}</p>`}
      </div>`
    }
    ${interval && html`<p class="small muted">${averagesOf(interval)}</p>`}
    ${
      !series.data
        ? html`<${Loading} error=${series.error} retry=${series.reload} />`
        : series.data.map(
            (s) => html`<${TimeChart} key=${s.metric}
              series=${[{ label: metricName(s.metric), unit: s.points[0]?.unit, points: s.points }]}
              thresholds=${thresholdsFor(rules, device, s.metric)} label=${metricName(s.metric)}
              span=${shown} timezone=${timezone} />`,
          )
    }
    ${chosen.length === 0 && html`<p class="muted">${w('pick_metric')}</p>`}
  </div>`;
}

/** The command history (its words, 4.6 KB, with it): loaded when scrolled to; at 360 px it is below the charts. */
const useHistory = lazy(() => import('../command-history.ts'));

function Commands({ device, timezone }: { device: Device; timezone: string }) {
  const spot = useRef<HTMLDivElement>(null);
  const seen = useSeen(spot);
  const history = useHistory(seen);
  return html`<div ref=${spot} class="command-history-spot">${
    history.module
      ? html`<${history.module.CommandHistory} device=${device} timezone=${timezone} />`
      : seen && html`<${Loading} error=${history.error} />`
  }</div>`;
}

export function Page({ farm, params }: PageProps) {
  useReader();
  useStore();
  const id = params.id ?? '';
  const [newKey, setNewKey] = useState<string | null>(null);
  const data = useLoad(async () => {
    const [device, recent, rules] = await Promise.all([
      api('GET', '/v1/devices/{id}', { path: { id } }),
      api('GET', '/v1/devices/{id}/readings', { path: { id }, query: { limit: 200 } }),
      api('GET', '/v1/farms/{farm}/rules', { path: { farm: farm.id } }).catch(() => ({ data: [] as Rule[] })),
    ]);
    const metrics = [...new Set(recent.data.map((r) => r.metric))];
    // Where its last position is (grazing): the paddock's name, when it stands in one.
    const paddock = device.paddock_id
      ? await api('GET', '/v1/paddocks/{id}', { path: { id: device.paddock_id } }).catch(() => null)
      : null;
    return { device, metrics, latest: recent.data, rules: rules.data, paddock };
  }, [id, farm.id]);
  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  const { device, metrics, latest, rules, paddock } = data.data;
  return html`<section>
    <p><a href="/devices">${w('back')}</a></p>
    <div class="card-head"><h1>${device.name}</h1><span class="status">${typeName(device.type)}</span></div>
    <dl class="facts">
      <div><dt>${w('battery')}</dt><dd>${amount(device.battery, '%')}</dd></div>
      <div><dt>${w('last_report')}</dt><dd>${ago(device.last_seen_at)}</dd></div>
      <div><dt>${w('paddock')}</dt><dd>${device.paddock_id ? html`<a href=${`/paddocks#${device.paddock_id}`}>${paddock?.name ?? w('open')}</a>` : '—'}</dd></div>
      <div><dt>${w('serial')}</dt><dd>${device.serial ?? '—'}</dd></div>
      <div><dt>${w('firmware')}</dt><dd>${device.firmware ?? '—'}</dd></div>
      <div><dt>${w('key')}</dt><dd><code>${device.key_prefix}…</code></dd></div>
      ${device.animal_id && html`<div><dt>${w('animal')}</dt><dd><a href=${`/animals/${device.animal_id}`}>${w('open')}</a></dd></div>`}
    </dl>
    ${
      can('devices', 'write') &&
      html`<div class="actions"><${ActionButton} label=${w('rotate')} action=${async () => {
        if (!confirm(w('rotate_confirm', { name: device.name }))) return w('kept');
        const rotated = await api('POST', '/v1/devices/{id}/key', { path: { id: device.id } });
        setNewKey(rotated.device_key);
        data.reload();
        return w('rotated');
      }} />
      <p class="muted">${w('mqtt')}</p></div>`
    }
    ${newKey && html`<${DeviceKey} deviceKey=${newKey} type=${device.type} title=${w('new_key_of', { name: device.name })} />`}
    ${
      metrics.length === 0
        ? html`<div class="panel"><h2>${w('readings')}</h2><p class="muted">${w('no_readings')}</p>
          <button type="button" class="button secondary" onClick=${data.reload}>${w('look_again')}</button></div>`
        : html`<${Charts} device=${device} metrics=${byName(metrics)} rules=${rules} timezone=${farm.timezone} />`
    }
    ${
      latest.length > 0 &&
      html`<p class="small muted">${w('latest', {
        list: latest
          .filter((r, i, all) => all.findIndex((x) => x.metric === r.metric) === i)
          .map((r) => `${metricName(r.metric)} ${amount(r.value, r.unit ?? '')}`)
          .join(' · '),
      })}</p>`
    }
    <h2>${w('command_history')}</h2>
    <${Commands} device=${device} timezone=${farm.timezone} />
  </section>`;
}
