/**
 * The Map page: the farm on one screen. Paddocks coloured by rest (tap one for its rest, who is in it and
 * its history; tap a group there to move it), houses and trackers where they last reported (tap one for
 * its track over the last days), open alerts, and the routes of planned house moves. A paddock is drawn,
 * edited or split on the map with its length and area shown while drawing (leaflet-geoman, loaded on the
 * first drawing: web/draw.ts). On a phone the map fills the screen under the header and the panels are
 * bottom sheets.
 */
import { api } from '../api.ts';
import { typeName } from '../device-type.ts';
import {
  type AlertProperties,
  FarmMap,
  type MapFeature,
  type PaddockProperties,
  type Picked,
  restState,
  Sheet,
  tileSetting,
} from '../farm-map.ts';
import { Field, text, useForm } from '../form.ts';
import { areaText, drawnAcresApart, HistoryToggle, occupiedNow } from '../grazing.ts';
import { words } from '../i18n.ts';
import { html, type Markup, useEffect, useMemo, useRef, useState } from '../lib.ts';
import { EN, ES } from '../messages/map.ts';
import { Lazy, lazy } from '../on-demand.ts';
import { useReader } from '../reader-hook.ts';
import { can, type Farm } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ago, amount, ErrorText, farmTime, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const useDrawPanels = lazy(() => import('../map-draw.ts'));
const useImportPanel = lazy(() => import('../map-import.ts'));
const useAlertText = lazy(() => import('../alert-text.ts'));

/** The farm as the map gives it (GET /v1/farms/{farm}/map). */
async function loadFarmMap(farmId: string): Promise<MapFeature[]> {
  const map = await api('GET', '/v1/farms/{farm}/map', { path: { farm: farmId } });
  return map.features as unknown as MapFeature[];
}

type DrawPanels = typeof import('../map-draw.ts');
type ImportPanel = typeof import('../map-import.ts');

/** What the bottom sheet shows. */
type Mode =
  | null
  | Picked
  | { kind: 'draw' }
  | { kind: 'edit'; id: string }
  | { kind: 'split'; id: string }
  | { kind: 'move'; group: { id: string; name: string }; from: string }
  | { kind: 'import' };

const w = words(EN, ES);

/**
 * An alert pin's sheet: its title in the reader's language (web/alert-text.ts, the alerts' whole catalog, is
 * loaded when a pin is opened, not with the map), its severity in words, and a link to the alert.
 */
function AlertSheet({ alert, onClose }: { alert: AlertProperties; onClose: () => void }) {
  const { module: text } = useAlertText();
  const severity = `severity.${alert.severity}`;
  return html`<${Sheet} title=${text ? text.alertTitle({ ...alert, reason: '' }) : alert.title} onClose=${onClose}>
    <p><span class=${`badge ${alert.severity}`}>${severity in EN ? w(severity as keyof typeof EN) : alert.severity}</span></p>
    <p><a class="button secondary" href=${`/alerts#${alert.id}`}>${w('open_alert')}</a></p><//>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const features = useLoad(() => loadFarmMap(farm.id), [farm.id]);
  const element = useRef<HTMLDivElement>(null);
  const farmMap = useRef<FarmMap | null>(null);
  const [mode, setMode] = useState<Mode>(null);
  const [tiles, setTiles] = useState<'none' | 'loading' | 'shown' | 'unreachable'>('loading');
  const reload = () => features.reload();
  // A device report moves its marker at once; moves, commands (a house's route) and alerts reload the map
  // (not while a drawing has it: the drawing would be redrawn away).
  useFarmStream(
    farm.id,
    [
      'device.reported',
      'event.created',
      'command.done',
      'command.queued',
      'alert.created',
      'alert.resolved',
      'device.created',
    ],
    (event) => {
      const map = farmMap.current;
      if (!map || map.busy) return;
      if (event.type === 'device.reported') {
        const { device_id, lat, lon } = event.data;
        if (typeof device_id !== 'string' || typeof lat !== 'number' || typeof lon !== 'number') return;
        if (!map.moveDevice(device_id, lat, lon)) reload();
        return;
      }
      reload();
    },
  );

  useEffect(() => {
    if (!element.current) return;
    const map = new FarmMap(element.current, setMode, tileSetting(), setTiles);
    farmMap.current = map;
    return () => {
      map.destroy();
      farmMap.current = null;
    };
  }, [farm.id]);

  useEffect(() => {
    if (features.data && farmMap.current && !farmMap.current.busy) {
      farmMap.current.show(
        features.data,
        farm.lat !== null && farm.lon !== null ? [farm.lat, farm.lon] : null,
      );
    }
  }, [features.data]);

  const paddockOf = (id: string) =>
    features.data?.find(
      (f): f is MapFeature<PaddockProperties> => f.properties.kind === 'paddock' && f.properties.id === id,
    );
  const selectedPaddock = mode && 'id' in mode && mode.kind === 'paddock' ? mode.id : null;
  useEffect(() => farmMap.current?.highlight(selectedPaddock), [selectedPaddock, features.data]);
  useEffect(() => {
    if (mode?.kind !== 'device') farmMap.current?.showTrack([]);
  }, [mode]);

  const write = can('paddocks', 'write');
  const close = () => setMode(null);
  /** After an edit or a split: the map again, with the paddock's panel. */
  const backTo = (id: string) => {
    reload();
    setMode({ kind: 'paddock', id });
  };
  const sheet = (): Markup => {
    if (!mode || !farmMap.current) return null;
    const map = farmMap.current;
    switch (mode.kind) {
      case 'paddock': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${PaddockSheet} paddock=${f.properties} timezone=${farm.timezone} write=${write}
              onMode=${setMode} onClose=${close} />`
          : null;
      }
      case 'device': {
        const f = features.data?.find((x) => x.properties.kind === 'device' && x.properties.id === mode.id);
        return f?.properties.kind === 'device'
          ? html`<${DeviceSheet} device=${f.properties} farm=${farm} map=${map} onClose=${close} />`
          : null;
      }
      case 'alert': {
        const f = features.data?.find((x) => x.properties.kind === 'alert' && x.properties.id === mode.id);
        if (f?.properties.kind !== 'alert') return null;
        return html`<${AlertSheet} alert=${f.properties} onClose=${close} />`;
      }
      case 'route': {
        const f = features.data?.find(
          (x) => x.properties.kind === 'route' && x.properties.command_id === mode.id,
        );
        if (f?.properties.kind !== 'route') return null;
        const r = f.properties;
        const to = paddockOf(r.paddock_id)?.properties.name ?? w('a_paddock');
        return html`<${Sheet} title=${w('planned_to', { paddock: to })} onClose=${close}>
          <dl class="facts">
            <div><dt>${w('distance')}</dt><dd>${amount(r.distance_m, 'm')}</dd></div>
            <div><dt>${w('rate')}</dt><dd>${amount(r.meters_per_day, 'm/day')}</dd></div>
            <div><dt>${w('arrives')}</dt><dd>${farmTime(r.arrival_at, farm.timezone)}</dd></div>
          </dl><//>`;
      }
      case 'draw':
        return html`<${Lazy} use=${useDrawPanels}>${(m: DrawPanels) =>
          html`<${m.DrawSheet} farm=${farm} map=${map} onDone=${(id: string | null) => {
            reload();
            setMode(id ? { kind: 'paddock', id } : null);
          }} />`}<//>`;
      case 'edit': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${Lazy} use=${useDrawPanels}>${(m: DrawPanels) =>
              html`<${m.EditSheet} paddock=${f.properties} map=${map} onDone=${() => backTo(mode.id)} />`}<//>`
          : null;
      }
      case 'split': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${Lazy} use=${useDrawPanels}>${(m: DrawPanels) =>
              html`<${m.SplitSheet} farm=${farm} paddock=${f.properties} geometry=${f.geometry} map=${map}
                onDone=${() => backTo(mode.id)} />`}<//>`
          : null;
      }
      case 'import':
        return html`<${Lazy} use=${useImportPanel}>${(m: ImportPanel) =>
          html`<${m.ImportSheet} farm=${farm} map=${map} onClose=${close} onDone=${reload} />`}<//>`;
      case 'move': {
        const paddocks = (features.data ?? []).flatMap((f) =>
          f.properties.kind === 'paddock' ? [f.properties] : [],
        );
        return html`<${MoveSheet} farm=${farm} group=${mode.group} from=${mode.from} paddocks=${paddocks}
          onDone=${() => {
            reload();
            setMode({ kind: 'paddock', id: mode.from });
          }} onClose=${() => setMode({ kind: 'paddock', id: mode.from })} />`;
      }
    }
  };
  const drawing = mode?.kind === 'draw' || mode?.kind === 'edit' || mode?.kind === 'split';
  // The import's preview is on the map until the sheet closes.
  useEffect(() => {
    if (mode?.kind !== 'import') farmMap.current?.showPreview([]);
  }, [mode?.kind]);
  const shown = sheet();
  return html`<section class="map-page" aria-label=${w('farm_map')}>
    <h1 class="visually-hidden">${w('title')}</h1>
    <div class="map-area">
      <div class="map-canvas" ref=${element}></div>
      ${
        !shown &&
        write &&
        html`<div class="map-tools">
        <button type="button" class="button primary" onClick=${() => setMode({ kind: 'draw' })}>${w('draw')}</button>
        <button type="button" class="button secondary" onClick=${() => setMode({ kind: 'import' })}>${w('import')}</button>
        <a class="button secondary" download href=${`/v1/farms/${encodeURIComponent(farm.id)}/map?download=true`}>${w('export')}</a>
      </div>`
      }
      ${tiles === 'unreachable' && html`<p class="map-note" role="status">${w('no_tiles')}</p>`}
      ${!features.data && html`<div class="map-note"><${Loading} error=${features.error} retry=${features.reload} /></div>`}
      ${features.data && !features.data.some((f) => f.geometry) && !drawing && html`<p class="map-note">${w('empty')}</p>`}
    </div>
    ${shown && html`<div class="map-sheet">${shown}</div>`}
  </section>`;
}

function PaddockSheet({
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
      ${p.occupied_by.houses.map((h) => html`<li key=${h.id}><a href=${`/devices/${h.id}`}>${h.name}</a> (house)</li>`)}
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
function MoveSheet({
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
function DeviceSheet({
  device,
  farm,
  map,
  onClose,
}: {
  device: Extract<MapFeature['properties'], { kind: 'device' }>;
  farm: Farm;
  map: FarmMap;
  onClose(): void;
}) {
  const [days, setDays] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    map.showTrack([]);
    setError(null);
    if (days === null) return;
    loadTrack(device.id, days).then(
      (points) => map.showTrack(points),
      (err: unknown) => setError(err),
    );
  }, [device.id, days]);
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
