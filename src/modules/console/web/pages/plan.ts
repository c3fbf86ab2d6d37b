/**
 * The grazing plan: each paddock's rest against its target on one timeline (two weeks back, six ahead),
 * who grazes it now, and the planned moves (open tasks with a destination paddock), with a warning where a
 * planned move enters a paddock before it has rested its target. Every figure is the API's (rest_days,
 * occupied_by, last_grazed_at); the page only lays them out.
 */
import type { Schema } from '../api.ts';
import { api } from '../api.ts';
import { Occupants, occupiedNow } from '../grazing.ts';
import { dayOf, words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/plan.ts';
import { useReader } from '../reader-hook.ts';
import { loadAll, type Places, usePlaces } from '../records.ts';
import { Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Paddock = Schema<'Paddock'>;
type Task = Schema<'Task'>;

const w = words(EN, ES);
const DAY_MS = 86_400_000;
const BACK_DAYS = 14;
const AHEAD_DAYS = 42;

/** The day a paddock has rested its target: its last grazing plus the target; null when unknown. */
export function readyAt(paddock: Paddock): number | null {
  if (paddock.rest_days_target === null || paddock.last_grazed_at === null || occupiedNow(paddock))
    return null;
  return Date.parse(paddock.last_grazed_at) + paddock.rest_days_target * DAY_MS;
}

/**
 * Why a planned move comes too early, or null: it enters a paddock still grazed (its rest has not begun),
 * or before the day it has rested its target. An undated move counts as today.
 */
export function moveWarning(paddock: Paddock, task: Task, now = Date.now()): string | null {
  if (paddock.rest_days_target === null) return null;
  const others = [
    ...paddock.occupied_by.groups,
    ...paddock.occupied_by.animals,
    ...paddock.occupied_by.houses,
  ];
  if (others.some((o) => o.id !== task.subject_id)) return w('still_grazed');
  const ready = readyAt(paddock);
  if (ready === null) return null;
  const at = task.due_at ? Date.parse(task.due_at) : now;
  const early = Math.ceil((ready - at) / DAY_MS);
  return early > 0 ? w('early', { count: early }) : null;
}

/** A position on the timeline, in percent of its width (clamped to it). */
function place(ms: number, start: number, end: number): number {
  return Math.min(100, Math.max(0, ((ms - start) / (end - start)) * 100));
}

function Segment({
  from,
  to,
  kind,
  start,
  end,
}: {
  from: number;
  to: number;
  kind: string;
  start: number;
  end: number;
}) {
  const left = place(from, start, end);
  const right = place(to, start, end);
  if (right <= left) return null;
  return html`<span class=${`plan-seg ${kind}`} style=${`left:${left}%;width:${right - left}%`}></span>`;
}

/** One paddock's line: its state in words, its timeline, and the moves planned into it. */
function PaddockLine({
  paddock,
  moves,
  names,
  timezone,
  now,
}: {
  paddock: Paddock;
  moves: Task[];
  names: Places['names'];
  timezone: string;
  now: number;
}) {
  const start = now - BACK_DAYS * DAY_MS;
  const end = now + AHEAD_DAYS * DAY_MS;
  const grazed = occupiedNow(paddock);
  const ready = readyAt(paddock);
  const last = paddock.last_grazed_at ? Date.parse(paddock.last_grazed_at) : null;
  const target = paddock.rest_days_target;
  // A day is never split across two lines ("7 / ene" in a badge that wraps).
  const day = (ms: number) => dayOf(new Date(ms).toISOString(), timezone).replaceAll(' ', '\u00a0');
  const count = paddock.rest_days;
  const state = grazed
    ? w('being_grazed')
    : count === null
      ? w('never_grazed')
      : target === null
        ? w('rested_no_target', { count })
        : ready !== null && ready <= now
          ? w('ready', { count, target })
          : w('resting', { count, target, day: ready === null ? '—' : day(ready) });
  return html`<li class="plan-row card" id=${paddock.id}>
    <div class="card-head"><h2 class="card-title">${paddock.name}</h2>
      <span class=${`badge ${grazed ? 'info' : ready !== null && ready <= now ? 'ok' : ''}`}>${state}</span></div>
    <div class="plan-track" role="img" aria-label=${w('track', { paddock: paddock.name, state })}>
      ${grazed && html`<${Segment} from=${start} to=${now} kind="grazing" start=${start} end=${end} />`}
      ${!grazed && last !== null && ready !== null && html`<${Segment} from=${last} to=${ready} kind="resting" start=${start} end=${end} />`}
      ${!grazed && ready !== null && html`<${Segment} from=${ready} to=${end} kind="ready" start=${start} end=${end} />`}
      <span class="plan-today" style=${`left:${place(now, start, end)}%`}></span>
      ${moves.map((m) => {
        const at = m.due_at ? Date.parse(m.due_at) : now;
        const early = moveWarning(paddock, m, now) !== null;
        return html`<span key=${m.id} class=${`plan-move${early ? ' early' : ''}`} style=${`left:${place(at, start, end)}%`}></span>`;
      })}
    </div>
    <${Occupants} paddock=${paddock} />
    ${
      moves.length > 0 &&
      html`<ul class="plan-moves small">${moves.map((m) => {
        const warning = moveWarning(paddock, m, now);
        const who = names.get(m.subject_id) ?? w(m.subject_type === 'animal' ? 'an_animal' : 'a_group');
        return html`<li key=${m.id} class=${warning ? 'early' : ''}>
          <a href=${`/tasks#${m.id}`}>${w('moves_in', { day: m.due_at ? day(Date.parse(m.due_at)) : w('no_date'), who })}</a>
          ${warning && html` <strong class="plan-warning">⚠ ${warning}</strong>`}
        </li>`;
      })}</ul>`
    }
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const places = usePlaces(farm.id);
  // The paddocks come with the places (one read of them per load).
  const plan = useLoad(async () => {
    const tasks = await loadAll((before) =>
      api('GET', '/v1/farms/{farm}/tasks', {
        path: { farm: farm.id },
        query: { status: 'open', limit: 100, before },
      }),
    );
    return { moves: tasks.filter((t) => t.paddock_id !== null) };
  }, [farm.id]);
  if (!plan.data || !places.data) {
    return html`<${Loading} error=${plan.error ?? places.error} retry=${() => {
      plan.reload();
      places.reload();
    }} />`;
  }
  const now = Date.now();
  const { moves } = plan.data;
  const { paddocks } = places.data;
  // Planned moves first by paddock, then the rested longest past their target, then the rest.
  const order = (p: Paddock) => (moves.some((m) => m.paddock_id === p.id) ? 0 : occupiedNow(p) ? 2 : 1);
  const sorted = [...paddocks].sort(
    (a, b) => order(a) - order(b) || (b.rest_days ?? -1) - (a.rest_days ?? -1),
  );
  const warnings = moves.filter((m) => {
    const p = paddocks.find((x) => x.id === m.paddock_id);
    return p && moveWarning(p, m, now) !== null;
  }).length;
  return html`<section class="plan">
    <h1>${w('title')}</h1>
    <p class="small muted">${w('intro')}</p>
    ${warnings > 0 && html`<p class="badge watch" role="status">${w('warnings', { count: warnings })}</p>`}
    <p class="plan-legend small" aria-hidden="true">
      <span class="key"><span class="plan-seg grazing"></span> ${w('key_grazed')}</span>
      <span class="key"><span class="plan-seg resting"></span> ${w('key_resting')}</span>
      <span class="key"><span class="plan-seg ready"></span> ${w('key_ready')}</span>
      <span class="key"><span class="plan-move"></span> ${w('key_move')}</span>
      <span class="key"><span class="plan-today-key"></span> ${w('key_today')}</span>
    </p>
    <ul class="cards plan-rows">${sorted.map(
      (p) => html`<${PaddockLine} key=${p.id} paddock=${p} moves=${moves.filter((m) => m.paddock_id === p.id)}
        names=${places.data?.names ?? new Map()} timezone=${farm.timezone} now=${now} />`,
    )}</ul>
    ${paddocks.length === 0 && html`<p class="muted">${w('none')}</p>`}
  </section>`;
}
