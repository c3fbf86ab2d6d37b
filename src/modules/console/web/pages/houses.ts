/**
 * Houses: one card per mobile house with what a poultry farmer checks — feed, water, temperature, ammonia,
 * battery and solar (coloured by the alert rules' lines from the catalog), the 14 pop doors, the move,
 * floor and lights, the last report (stale ones highlighted) — and every house command from the catalog,
 * with recent commands updating live (queued → delivered → done / failed).
 */
import type { HouseState } from '../../../../domain/house-state.ts';
import { classifyReading } from '../../../../domain/rules.ts';
import { api, type Schema } from '../api.ts';
import { CommandForm } from '../command-form-on-open.ts';
import { html, useEffect, useMemo } from '../lib.ts';
import { loadAll, loadPaddocks } from '../records.ts';
import { hasPage } from '../router.ts';
import { type Catalog, type Farm, loadCatalog, useStore } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ago, amount, farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type House = Schema<'House'>;
type Summary = Schema<'Brief'>['houses'][number];
type Rule = Catalog['rules'][number];

const METRICS = [
  { metric: 'feed.bin_pct', label: 'Feed' },
  { metric: 'water.tank_pct', label: 'Water' },
  { metric: 'climate.temp_c', label: 'Temperature' },
  { metric: 'climate.nh3_ppm', label: 'Ammonia' },
  { metric: 'power.battery_pct', label: 'Battery' },
  { metric: 'power.solar_w', label: 'Solar' },
];

/**
 * 'urgent', 'watch' or '' for a value against the threshold rule on its metric (the catalog's default
 * rules), classified by the engine's own classifyReading.
 */
function levelOf(rules: readonly Rule[], metric: string, value: number | null | undefined): string {
  const rule = rules.find(
    (r): r is Extract<Rule, { kind: 'threshold' }> => r.kind === 'threshold' && r.metric === metric,
  );
  if (!rule || value === null || value === undefined) return '';
  const found = classifyReading(rule, value);
  return found === 'urgent' || found === 'watch' ? found : '';
}

const PENDING = new Set<string>(['queued', 'delivered']);

function Doors({ doors }: { doors: Partial<HouseState['doors']> }) {
  const numbers = (Object.keys(doors) as (keyof HouseState['doors'])[]).sort((a, b) => Number(a) - Number(b));
  const open = numbers.filter((n) => doors[n] === 'open').length;
  return html`<div class="doors">
    <p><strong>Pop doors</strong> ${open} of ${numbers.length} open</p>
    <ol class="door-row" aria-label="Pop doors">
      ${numbers.map(
        (n) => html`<li class=${`door ${doors[n]}`} title=${`Door ${n}: ${doors[n]}`}>
        <span aria-hidden="true">${n}</span><span class="visually-hidden">Door ${n} ${doors[n]}</span></li>`,
      )}
    </ol>
  </div>`;
}

/** A command's parameters for people: "meters per day 12, heading deg 95". */
function paramsText(params: Record<string, unknown> | null | undefined): string {
  return Object.entries(params ?? {})
    .map(([name, value]) => `${name.replaceAll('_', ' ')} ${Array.isArray(value) ? value.join(' ') : value}`)
    .join(', ');
}

/**
 * What the device said about a failed command (its result's `error` or `message`; a Command has no error
 * member of its own).
 */
function failure(command: Schema<'Command'>): string | null {
  const said = command.result?.error ?? command.result?.message;
  return command.status === 'failed' && typeof said === 'string' ? said : null;
}

function Commands({ commands, timezone }: { commands: House['recent_commands']; timezone: string }) {
  if (commands.length === 0) return html`<p class="muted small">No commands yet.</p>`;
  return html`<ul class="commands" aria-label="Recent commands">
    ${commands.slice(0, 5).map(
      (c) => html`<li class="command" data-command=${c.command}>
        <code>${c.command}</code>
        <span class="params">${paramsText(c.params)}</span>
        <span class=${`status ${c.status}`}>${c.status}</span>
        <span class="muted small">${farmTime(c.created_at, timezone)}</span>
        ${failure(c) && html`<span class="error small">${failure(c)}</span>`}
      </li>`,
    )}
  </ul>`;
}

function HouseCard({
  house,
  summary,
  farm,
  paddock,
  rules,
  commands,
  onSent,
}: {
  house: House;
  summary: Summary | undefined;
  farm: Farm;
  /** The name of the paddock the house stands in (its position), if known. */
  paddock: string | null;
  rules: readonly Rule[];
  commands: Catalog['commands'][string];
  onSent(): void;
}) {
  // The house view's state as stored (readHouseState's shape; a member a device never reported is absent).
  const state = house.state as Partial<HouseState>;
  const reading = (metric: string) => house.latest_readings[metric]?.value ?? null;
  const stale = summary?.quiet ?? false;
  const move: Partial<HouseState['move']> = state.move ?? {};
  return html`<article id=${house.id} class=${`card house${stale ? ' stale' : ''}`} tabindex="-1" aria-labelledby=${`${house.id}-name`}>
    <div class="card-head">
      <h2 class="card-title" id=${`${house.id}-name`}>${house.name}</h2>
      <span class=${`last-report${stale ? ' stale' : ''}`}>
        ${stale ? 'Not reporting · ' : ''}last report ${ago(house.last_seen_at)}</span>
    </div>
    ${summary && summary.attention.length > 0 && html`<p class="attention">Needs attention: ${summary.attention.join('; ')}</p>`}
    <dl class="metrics">
      ${METRICS.map(({ metric, label }) => {
        const r = house.latest_readings[metric];
        const level = levelOf(rules, metric, r?.value);
        return html`<div class=${`metric ${level}`}><dt>${label}</dt><dd>${amount(r?.value ?? null, r?.unit ?? '')}
          ${level && html`<span class="visually-hidden"> (${level})</span>`}</dd></div>`;
      })}
    </dl>
    <${Doors} doors=${state.doors ?? {}} />
    ${summary?.doors?.after_dusk && summary.doors.open > 0 && html`<p class="attention">Doors open after dusk.</p>`}
    <dl class="facts">
      <div><dt>Move</dt><dd>${move.status ?? '—'}${move.status === 'stepping' ? `, ${amount(move.meters_per_day, 'm/day')}` : ''}${
        move.heading_deg !== null && move.heading_deg !== undefined ? `, heading ${move.heading_deg}°` : ''
      }</dd></div>
      <div><dt>Paddock</dt><dd>${house.paddock_id ? html`<a href=${`/paddocks#${house.paddock_id}`}>${paddock ?? 'open'}</a>` : '—'}</dd></div>
      <div><dt>Floor</dt><dd>${state.floor ?? '—'}</dd></div>
      <div><dt>Lights</dt><dd>${state.lights ?? '—'}</dd></div>
      <div><dt>Birds inside</dt><dd>${amount(reading('birds.inside'))}</dd></div>
    </dl>
    <h3 class="small-heading">Recent commands</h3>
    <${Commands} commands=${house.recent_commands} timezone=${farm.timezone} />
    ${hasPage(`/devices/${house.id}`) && html`<p class="small"><a href=${`/devices/${house.id}`}>Full command history and charts</a></p>`}
    <details class="send">
      <summary>Send a command</summary>
      <${CommandForm} device=${house} farm=${farm} commands=${commands} onSent=${onSent} idPrefix=${house.id} />
    </details>
  </article>`;
}

export function Page({ farm }: PageProps) {
  useStore();
  const path = { farm: farm.id };
  const houses = useLoad(
    () =>
      Promise.all([
        // Every page of houses (a farm of many houses, or of large states, pages: docs/api.md, Houses).
        loadAll(
          (before) => api('GET', '/v1/farms/{farm}/houses', { path, query: { limit: 100, before } }),
          1000,
        ),
        api('GET', '/v1/farms/{farm}/brief', { path }).catch(() => null),
        // The alert rules' lines and the house commands (read once; only this page and settings need it).
        loadCatalog(),
      ]),
    [farm.id],
  );
  useFarmStream(
    farm.id,
    ['command.queued', 'command.done', 'command.failed', 'alert.created', 'alert.resolved'],
    () => houses.reload(),
  );
  // Paddock names for where each house stands: read once per farm, not on every command's reload.
  const paddocks = useLoad(() => loadPaddocks(farm.id), [farm.id]);
  const paddockNames = useMemo(
    () => new Map((paddocks.data ?? []).map((p) => [p.id, p.name])),
    [paddocks.data],
  );
  const list = houses.data?.[0] ?? [];
  const summaries = useMemo(
    () => new Map((houses.data?.[1]?.houses ?? []).map((h) => [h.id, h])),
    [houses.data],
  );
  // A device that has not picked up its command yet reports no event: look again while any is on its way.
  const pending = list.some((h) => h.recent_commands.some((c) => PENDING.has(c.status)));
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => houses.reload(), 5000);
    return () => clearInterval(timer);
  }, [pending]);

  useScrollToHash(houses.data !== null);
  if (!houses.data) return html`<${Loading} error=${houses.error} retry=${houses.reload} />`;
  const catalog = houses.data[2];
  const commands = catalog.commands.house ?? [];
  return html`<section>
    <h1>Houses</h1>
    ${farm.sample && html`<p class="muted small">Commands to the sample farm's houses are simulated: done at once.</p>`}
    ${list.length === 0 && html`<p class="calm">No houses on ${farm.name}.</p>`}
    <div class="house-grid">
      ${list.map(
        (
          house,
        ) => html`<${HouseCard} key=${house.id} house=${house} summary=${summaries.get(house.id)} farm=${farm}
          paddock=${house.paddock_id ? (paddockNames.get(house.paddock_id) ?? null) : null}
          rules=${catalog.rules} commands=${commands} onSent=${() => houses.reload()} />`,
      )}
    </div>
  </section>`;
}
