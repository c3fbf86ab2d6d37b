/**
 * The Map page's panels for what was tapped (pages/map.ts): a paddock (its rest, who is in it, its history,
 * moving a group from it), a house or tracker (and its track), an alert, a planned move. Loaded with the
 * first tap, not with the page (issue 45's page weight), whether the farm is drawn as the SVG
 * (web/farm-svg.ts) or on Leaflet (web/farm-map.ts).
 */
import { api } from './api.ts';
import { typeName } from './device-type.ts';
import type { FarmMap } from './farm-map.ts';
import { Field, text, useForm } from './form.ts';
import { areaText, drawnAcresApart, HistoryToggle, occupiedNow } from './grazing.ts';
import { t, words } from './i18n.ts';
import { html, useEffect, useMemo, useState } from './lib.ts';
import {
  type AlertProperties,
  type MapFeature,
  type PaddockProperties,
  type Picked,
  type RouteProperties,
  restState,
  Sheet,
} from './map-view.ts';
import { EN, ES } from './messages/map.ts';
import { lazy } from './on-demand.ts';
import { can, type Farm } from './store.ts';
import { ago, amount, ErrorText, farmTime, problemOf } from './ui.ts';

const useAlertText = lazy(() => import('./alert-text.ts'));

const w = words(EN, ES);

/** What the bottom sheet shows. */
export type Mode =
  | null
  | Picked
  | { kind: 'draw' }
  | { kind: 'edit'; id: string }
  | { kind: 'split'; id: string }
  | { kind: 'move'; group: { id: string; name: string }; from: string }
  | { kind: 'import' };

/**
 * An alert pin's sheet: its title in the reader's language (web/alert-text.ts, the alerts' whole catalog, is
 * loaded when a pin is opened, not with the map), its severity in words, and a link to the alert.
 */
export function AlertSheet({ alert, onClose }: { alert: AlertProperties; onClose: () => void }) {
  const { module: text } = useAlertText();
  const severity = `severity.${alert.severity}`;
  return html`<${Sheet} title=${text ? text.alertTitle({ ...alert, reason: '' }) : alert.title} onClose=${onClose}>
    <p><span class=${`badge ${alert.severity}`}>${severity in EN ? w(severity as keyof typeof EN) : alert.severity}</span></p>
    <p><a class="button secondary" href=${`/alerts#${alert.id}`}>${w('open_alert')}</a></p><//>`;
}

/** A planned house move: how far, how fast, and when it arrives. */
export function RouteSheet({
  route: r,
  to,
  timezone,
  onClose,
}: {
  route: RouteProperties;
  to: string;
  timezone: string;
  onClose(): void;
}) {
  return html`<${Sheet} title=${w('planned_to', { paddock: to })} onClose=${onClose}>
    <dl class="facts">
      <div><dt>${w('distance')}</dt><dd>${amount(r.distance_m, 'm')}</dd></div>
      <div><dt>${w('rate')}</dt><dd>${amount(r.meters_per_day, 'm/day')}</dd></div>
      <div><dt>${w('arrives')}</dt><dd>${farmTime(r.arrival_at, timezone)}</dd></div>
    </dl><//>`;
}

export function PaddockSheet({
  paddock: p,
  timezone,
  write,
  onMode,
  onClose,
}: {
  paddock: PaddockProperties;
  timezone: string;
  write: boolean;
  onMode(mode: Mode): void;
  onClose(): void;
}) {
  const rested = p.rest_days;
  const state = restState(p);
  const inHere = p.occupied_by.groups;
  // Recording a move logs an event and moves the group (the server decides; the button only for who may).
  const mover = can('events', 'write') && can('groups', 'write');
  const drawn = drawnAcresApart(p);
  return html`<${Sheet} title=${p.name} onClose=${onClose}>
    <p><span class=${`badge rest-${state}`}>${w(`state.${state}`)}</span></p>
    ${p.geometry_problem && html`<p class="error">${w('bad_outline', { problem: p.geometry_problem })}</p>`}
    <dl class="facts">
      <div><dt>${w('rested')}</dt><dd>${occupiedNow(p) ? w('grazed_now') : rested === null ? w('never_grazed') : w('days', { count: rested })}</dd></div>
      <div><dt>${w('rest_target')}</dt><dd>${p.rest_days_target === null ? '—' : w('days', { count: p.rest_days_target })}</dd></div>
      <div><dt>${w('area')}</dt><dd>${areaText(p.acres)}${drawn !== null && html` <span class="badge watch" title=${w('drawn_title')}>${w('drawn', { area: areaText(drawn) })}</span>`}</dd></div>
    </dl>
    <h3>${w('in_paddock')}</h3>
    ${!occupiedNow(p) && html`<p class="muted">${w('nobody')}</p>`}
    <ul class="occupants">
      ${inHere.map((g) =>
        mover
          ? html`<li key=${g.id}><button type="button" class="button secondary"
          onClick=${() => onMode({ kind: 'move', group: { id: g.id, name: g.name }, from: p.id })}>${w('move_named', { name: g.name })}</button></li>`
          : html`<li key=${g.id}><a href=${`/animals?group_id=${g.id}`}>${g.name}</a></li>`,
      )}
      ${p.occupied_by.animals.map((a) => html`<li key=${a.id}><a href=${`/animals/${a.id}`}>${a.name ?? a.tag ?? a.id}</a></li>`)}
      ${p.occupied_by.houses.map((h) => html`<li key=${h.id}><a href=${`/devices/${h.id}`}>${h.name}</a> (${t('subject_kind.house')})</li>`)}
    </ul>
    <${HistoryToggle} paddock=${p} timezone=${timezone} />
    ${
      write &&
      html`<div class="actions">
      <button type="button" class="button secondary" onClick=${() => onMode({ kind: 'edit', id: p.id })}>${w('edit_outline')}</button>
      <button type="button" class="button secondary" onClick=${() => onMode({ kind: 'split', id: p.id })}>${w('split')}</button>
      <a class="button link" href=${`/paddocks#${p.id}`}>${w('details')}</a>
    </div>`
    }
  <//>`;
}

/** Recording a move of a group: the paddock it goes to, chosen from the list; logged as a `move` event. */
export function MoveSheet({
  farm,
  group,
  from,
  paddocks,
  onDone,
  onClose,
}: {
  farm: Farm;
  group: { id: string; name: string };
  from: string;
  paddocks: PaddockProperties[];
  onDone(): void;
  onClose(): void;
}) {
  const others = useMemo(() => paddocks.filter((p) => p.id !== from), [paddocks, from]);
  const form = useForm(async (data) => {
    const to = text(data, 'to_paddock_id');
    await api('POST', '/v1/farms/{farm}/events', {
      path: { farm: farm.id },
      body: { type: 'move', subject_type: 'group', subject_id: group.id, data: { to_paddock_id: to } },
    });
    onDone();
    return null;
  });
  const options = others.map((p) => {
    const state = restState(p);
    return [p.id, w('option', { paddock: p.name, state: w(`option.${state}`) })] as const;
  });
  return html`<${Sheet} title=${w('move_title', { name: group.name })} onClose=${onClose}>
    <form onSubmit=${form.onSubmit} aria-label=${w('move_title', { name: group.name })}>
      <${Field} name="to_paddock_id" label=${w('to_paddock')} type="select" options=${options} required error=${form.error} idPrefix="move" />
      <${ErrorText} error=${form.error?.param ? null : form.error} />
      <div class="actions"><button type="submit" class="button primary" disabled=${form.busy || options.length === 0}>${w('record_move')}</button></div>
    </form><//>`;
}

/** A house or tracker: battery, last report, and its track over the last days on the map. */
export function DeviceSheet({
  device,
  farm,
  map,
  onNeedMap,
  onClose,
}: {
  device: Extract<MapFeature['properties'], { kind: 'device' }>;
  farm: Farm;
  /** Leaflet's map, once loaded (a track is drawn on it); `onNeedMap` asks for it. */
  map: FarmMap | null;
  onNeedMap(): void;
  onClose(): void;
}) {
  const [days, setDays] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    map?.showTrack([]);
    setError(null);
    if (days === null) return;
    if (!map) {
      onNeedMap();
      return;
    }
    loadTrack(device.id, days).then(
      (points) => map.showTrack(points),
      (err: unknown) => setError(err),
    );
  }, [device.id, days, map]);
  return html`<${Sheet} title=${device.name} onClose=${onClose}>
    <dl class="facts">
      <div><dt>${w('type')}</dt><dd>${typeName(device.type)}</dd></div>
      <div><dt>${w('battery')}</dt><dd>${amount(device.battery, '%')}</dd></div>
      <div><dt>${w('last_report')}</dt><dd title=${farmTime(device.last_seen_at, farm.timezone)}>${ago(device.last_seen_at)}</dd></div>
    </dl>
    <div class="actions" role="group" aria-label=${w('track')}>
      ${[1, 3, 7].map(
        (d) => html`<button type="button" class=${`button ${days === d ? 'primary' : 'secondary'}`}
          aria-pressed=${days === d} onClick=${() => setDays(days === d ? null : d)}>${w('track_days', { count: d })}</button>`,
      )}
      <a class="button link" href=${`/devices/${device.id}`}>${w('device_page')}</a>
    </div>
    <${ErrorText} error=${error ? problemOf(error) : null} /><//>`;
}

/** A device's positions over the last `days`, oldest first (thinned by the server to at most 500). */
async function loadTrack(deviceId: string, days: number): Promise<{ lat: number; lon: number }[]> {
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const track = await api('GET', '/v1/devices/{id}/track', {
    path: { id: deviceId },
    query: { since, limit: 500 },
  });
  return [...track.data].reverse();
}
