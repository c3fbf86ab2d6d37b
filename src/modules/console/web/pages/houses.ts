/**
 * Houses: one card per mobile house with what a poultry farmer checks — feed, water, temperature, ammonia,
 * battery and solar (coloured by the default alert rules' lines), the 14 pop doors, the move, floor and
 * lights, the last report (stale ones highlighted) — and every house command from the catalog (read when the
 * command form is opened), with recent commands updating live (queued → delivered → done / failed).
 */
import type { HouseState } from '../../../../domain/house-state.ts';
import { classifyReading, DEFAULT_RULES, rulesForMetric } from '../../../../domain/rules.ts';
import { api, type Schema } from '../api.ts';
import { CommandForm } from '../command-form-on-open.ts';
import { inReaderUnits, words } from '../i18n.ts';
import { html, useEffect, useMemo, useRef } from '../lib.ts';
import { EN, ES } from '../messages/houses.ts';
import { lazy, useSeen } from '../on-demand.ts';
import { useReader } from '../reader-hook.ts';
import { loadAll, loadPaddocks } from '../records.ts';
import { hasPage } from '../router.ts';
import { type Farm, useStore } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ago, amount, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type House = Schema<'House'>;
type Summary = Schema<'Brief'>['houses'][number];

const w = words(EN, ES);

const METRICS = [
  { metric: 'feed.bin_pct', label: 'feed' },
  { metric: 'water.tank_pct', label: 'water' },
  { metric: 'climate.temp_c', label: 'temperature' },
  { metric: 'climate.nh3_ppm', label: 'ammonia' },
  { metric: 'power.battery_pct', label: 'battery' },
  { metric: 'power.solar_w', label: 'solar' },
] as const;

/** A house state's value (a door, the move, the floor, the lights) in the reader's words. */
function stateWord(value: string | null | undefined): string {
  if (!value) return '—';
  return `state.${value}` in EN ? w(`state.${value}` as keyof typeof EN) : value;
}

/**
 * 'urgent', 'watch' or '' for a value against the threshold rule on its metric (the default rules the
 * catalog publishes, from the registry itself), classified by the engine's own classifyReading.
 */
function levelOf(metric: string, value: number | null | undefined): string {
  const [rule] = rulesForMetric(DEFAULT_RULES, metric);
  if (!rule || value === null || value === undefined) return '';
  const found = classifyReading(rule, value);
  return found === 'urgent' || found === 'watch' ? found : '';
}

const PENDING = new Set<string>(['queued', 'delivered']);

function Doors({ doors }: { doors: Partial<HouseState['doors']> }) {
  const numbers = (Object.keys(doors) as (keyof HouseState['doors'])[]).sort((a, b) => Number(a) - Number(b));
  const open = numbers.filter((n) => doors[n] === 'open').length;
  return html`<div class="doors">
    <p><strong>${w('pop_doors')}</strong> ${w('doors_open', { open, count: numbers.length })}</p>
    <ol class="door-row" aria-label=${w('pop_doors')}>
      ${numbers.map(
        (
          n,
        ) => html`<li class=${`door ${doors[n]}`} title=${w('door', { number: n, state: stateWord(doors[n]) })}>
        <span aria-hidden="true">${n}</span><span class="visually-hidden">${w('door', { number: n, state: stateWord(doors[n]) })}</span></li>`,
      )}
    </ol>
  </div>`;
}

/**
 * The recent commands' rows with their words (web/command-row.ts and src/domain/command-terms.ts, 6.4 KB):
 * loaded when a card's commands are scrolled to, as the device page loads its history; at 360 px they are
 * below the first card's readings, doors and facts.
 */
const useCommandRows = lazy(() => import('../command-row.ts'));

/** A house's last five commands, each in words, as a device's command history says them. */
function Commands({
  commands,
  timezone,
  nameOf,
}: {
  commands: House['recent_commands'];
  timezone: string;
  nameOf(id: string): string | undefined;
}) {
  const spot = useRef<HTMLDivElement>(null);
  const seen = useSeen(spot);
  const rows = useCommandRows(seen && commands.length > 0);
  if (commands.length === 0) return html`<p class="muted small">${w('no_commands')}</p>`;
  const Row = rows.module?.CommandRow;
  return html`<div ref=${spot} class="commands-spot">${
    Row
      ? html`<ul class="commands" aria-label=${w('recent_commands')}>
          ${commands
            .slice(0, 5)
            .map((c) => html`<${Row} key=${c.id} command=${c} timezone=${timezone} nameOf=${nameOf} />`)}
        </ul>`
      : seen && html`<${Loading} error=${rows.error} />`
  }</div>`;
}

function HouseCard({
  house,
  summary,
  farm,
  paddock,
  paddockNames,
  onSent,
}: {
  house: House;
  summary: Summary | undefined;
  farm: Farm;
  /** The name of the paddock the house stands in (its position), if known. */
  paddock: string | null;
  /** The farm's paddocks' names, for a command that sent the house to one. */
  paddockNames: ReadonlyMap<string, string>;
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
        ${w(stale ? 'not_reporting' : 'last_report', { ago: ago(house.last_seen_at) })}</span>
    </div>
    ${summary && summary.attention.length > 0 && html`<p class="attention">${w('attention', { list: inReaderUnits(summary.attention.join('; ')) })}</p>`}
    <dl class="metrics">
      ${METRICS.map(({ metric, label }) => {
        const r = house.latest_readings[metric];
        const level = levelOf(metric, r?.value);
        return html`<div class=${`metric ${level}`}><dt>${w(label)}</dt><dd>${amount(r?.value ?? null, r?.unit ?? '')}
          ${level && html`<span class="visually-hidden"> ${w(level === 'urgent' ? 'level_urgent' : 'level_watch')}</span>`}</dd></div>`;
      })}
    </dl>
    <${Doors} doors=${state.doors ?? {}} />
    ${summary?.doors?.after_dusk && summary.doors.open > 0 && html`<p class="attention">${w('doors_after_dusk')}</p>`}
    <dl class="facts">
      <div><dt>${w('move')}</dt><dd>${moveText(move)}</dd></div>
      <div><dt>${w('paddock')}</dt><dd>${house.paddock_id ? html`<a href=${`/paddocks#${house.paddock_id}`}>${paddock ?? w('open_paddock')}</a>` : '—'}</dd></div>
      <div><dt>${w('floor')}</dt><dd>${stateWord(state.floor)}</dd></div>
      <div><dt>${w('lights')}</dt><dd>${stateWord(state.lights)}</dd></div>
      <div><dt>${w('birds_inside')}</dt><dd>${amount(reading('birds.inside'))}</dd></div>
    </dl>
    <h3 class="small-heading">${w('recent_commands')}</h3>
    <${Commands} commands=${house.recent_commands} timezone=${farm.timezone}
      nameOf=${(id: string) => paddockNames.get(id)} />
    ${hasPage(`/devices/${house.id}`) && html`<p class="small"><a href=${`/devices/${house.id}`}>${w('history')}</a></p>`}
    <details class="send">
      <summary>${w('send')}</summary>
      <${CommandForm} device=${house} farm=${farm} onSent=${onSent} idPrefix=${house.id} />
    </details>
  </article>`;
}

/** The move: its status, its speed when stepping, its heading when known. */
function moveText(move: Partial<HouseState['move']>): string {
  if (!move.status) return '—';
  const status = stateWord(move.status);
  const speed = move.status === 'stepping' ? amount(move.meters_per_day, 'm/day') : null;
  const heading = move.heading_deg ?? null;
  if (speed && heading !== null) return w('move_speed_heading', { status, speed, heading });
  if (speed) return w('move_speed', { status, speed });
  if (heading !== null) return w('move_heading', { status, heading });
  return status;
}

export function Page({ farm }: PageProps) {
  useReader();
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
  return html`<section>
    <h1>${w('title')}</h1>
    ${farm.sample && html`<p class="muted small">${w('sample')}</p>`}
    ${list.length === 0 && html`<p class="calm">${w('none', { farm: farm.name })}</p>`}
    <div class="house-grid">
      ${list.map(
        (
          house,
        ) => html`<${HouseCard} key=${house.id} house=${house} summary=${summaries.get(house.id)} farm=${farm}
          paddock=${house.paddock_id ? (paddockNames.get(house.paddock_id) ?? null) : null} paddockNames=${paddockNames}
          onSent=${() => houses.reload()} />`,
      )}
    </div>
  </section>`;
}
