/**
 * The Map page: the farm on one screen. Paddocks coloured by rest (tap one for its rest, who is in it and
 * its history; tap a group there to move it), houses and trackers where they last reported (tap one for
 * its track over the last days), open alerts, and the routes of planned house moves. A paddock is drawn,
 * edited or split on the map with its length and area shown while drawing (leaflet-geoman, loaded on the
 * first drawing: web/draw.ts). On a phone the map fills the screen under the header and the panels are
 * bottom sheets.
 */
import { api, type Reply } from '../api.ts';
import type { Drawing, Measure, Outline } from '../draw.ts';
import {
  FarmMap,
  isOccupied,
  type MapFeature,
  type PaddockProperties,
  type Picked,
  restDays,
  restState,
  tileSetting,
} from '../farm-map.ts';
import { Field, number, text, useForm } from '../form.ts';
import { html, type Markup, useEffect, useMemo, useRef, useState } from '../lib.ts';
import { drawnAcresApart, loadGroups } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, ago, amount, ErrorText, farmTime, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type DrawModule = typeof import('../draw.ts');

/** Geoman and the area measure: fetched once, on the first drawing or edit. */
let drawModule: Promise<DrawModule> | null = null;
function loadDraw(): Promise<DrawModule> {
  drawModule ??= import('../draw.ts').catch((error: unknown) => {
    drawModule = null;
    throw error;
  });
  return drawModule;
}

/**
 * The farm as the map gives it (GET /v1/farms/{farm}/map). Where the server does not say who is in a
 * paddock (`occupied_by`), the groups placed in it are its occupants.
 */
async function loadFarmMap(farmId: string): Promise<MapFeature[]> {
  const [map, groups] = await Promise.all([
    api('GET', '/v1/farms/{farm}/map', { path: { farm: farmId } }),
    loadGroups(farmId),
  ]);
  return map.features.map((f) => {
    const feature = f as unknown as MapFeature;
    const p = feature.properties;
    if (p.kind !== 'paddock' || p.occupied_by) return feature;
    const inIt = groups.filter((g) => g.paddock_id === p.id).map((g) => ({ id: g.id, name: g.name }));
    return { ...feature, properties: { ...p, occupied_by: { groups: inIt, animals: [], houses: [] } } };
  });
}

/** What the bottom sheet shows. */
type Mode =
  | null
  | Picked
  | { kind: 'draw' }
  | { kind: 'edit'; id: string }
  | { kind: 'split'; id: string }
  | { kind: 'move'; group: { id: string; name: string }; from: string }
  | { kind: 'import' };

const STATE_WORDS = {
  occupied: 'Grazed now',
  ready: 'Ready to graze',
  resting: 'Resting',
  unknown: 'No rest figures',
} as const;

export function Page({ farm }: PageProps) {
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
  const sheet = (): Markup => {
    if (!mode || !farmMap.current) return null;
    const map = farmMap.current;
    switch (mode.kind) {
      case 'paddock': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${PaddockSheet} paddock=${f.properties} write=${write}
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
        return html`<${Sheet} title=${f.properties.title} onClose=${close}>
          <p><span class=${`badge ${f.properties.severity}`}>${f.properties.severity}</span> ${f.properties.rule}</p>
          <p><a class="button secondary" href=${`/alerts#${f.properties.id}`}>Open the alert</a></p><//>`;
      }
      case 'route': {
        const f = features.data?.find(
          (x) => x.properties.kind === 'route' && x.properties.command_id === mode.id,
        );
        if (f?.properties.kind !== 'route') return null;
        const r = f.properties;
        const to = paddockOf(r.paddock_id)?.properties.name ?? 'a paddock';
        return html`<${Sheet} title=${`Planned move to ${to}`} onClose=${close}>
          <dl class="facts">
            <div><dt>Distance</dt><dd>${amount(r.distance_m, 'm')}</dd></div>
            <div><dt>Rate</dt><dd>${amount(r.meters_per_day, 'm/day')}</dd></div>
            <div><dt>Arrives</dt><dd>${farmTime(r.arrival_at, farm.timezone)}</dd></div>
          </dl><//>`;
      }
      case 'draw':
        return html`<${DrawSheet} farm=${farm} map=${map} onDone=${(id: string | null) => {
          reload();
          setMode(id ? { kind: 'paddock', id } : null);
        }} />`;
      case 'edit': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${EditSheet} paddock=${f.properties} map=${map} onDone=${() => {
              reload();
              setMode({ kind: 'paddock', id: mode.id });
            }} />`
          : null;
      }
      case 'split': {
        const f = paddockOf(mode.id);
        return f
          ? html`<${SplitSheet} farm=${farm} paddock=${f.properties} geometry=${f.geometry} map=${map}
              onDone=${() => {
                reload();
                setMode({ kind: 'paddock', id: mode.id });
              }} />`
          : null;
      }
      case 'import':
        return html`<${ImportSheet} farm=${farm} map=${map} onClose=${close} onDone=${reload} />`;
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
  return html`<section class="map-page" aria-label="Farm map">
    <h1 class="visually-hidden">Map</h1>
    <div class="map-area">
      <div class="map-canvas" ref=${element}></div>
      ${
        !shown &&
        write &&
        html`<div class="map-tools">
        <button type="button" class="button primary" onClick=${() => setMode({ kind: 'draw' })}>Draw a paddock</button>
        <button type="button" class="button secondary" onClick=${() => setMode({ kind: 'import' })}>Import</button>
        <a class="button secondary" download href=${`/v1/farms/${encodeURIComponent(farm.id)}/map?download=true`}>Export</a>
      </div>`
      }
      ${tiles === 'unreachable' && html`<p class="map-note" role="status">Map tiles could not be loaded: the farm is drawn on a plain background.</p>`}
      ${!features.data && html`<div class="map-note"><${Loading} error=${features.error} retry=${features.reload} /></div>`}
      ${features.data && !features.data.some((f) => f.geometry) && !drawing && html`<p class="map-note">Nothing on the map yet: draw a paddock, or give devices a position.</p>`}
    </div>
    ${shown && html`<div class="map-sheet">${shown}</div>`}
  </section>`;
}

function Sheet({ title, onClose, children }: { title: string; onClose?: () => void; children: Markup }) {
  return html`<div class="sheet" role="region" aria-label=${title}>
    <div class="sheet-head"><h2>${title}</h2>
      ${onClose && html`<button type="button" class="button link sheet-close" onClick=${onClose} aria-label="Close">Close</button>`}</div>
    ${children}
  </div>`;
}

function PaddockSheet({
  paddock: p,
  write,
  onMode,
  onClose,
}: {
  paddock: PaddockProperties;
  write: boolean;
  onMode(mode: Mode): void;
  onClose(): void;
}) {
  const rested = restDays(p);
  const state = restState(p);
  const inHere = p.occupied_by?.groups ?? [];
  const drawn = drawnAcresApart(p);
  return html`<${Sheet} title=${p.name} onClose=${onClose}>
    <p><span class=${`badge rest-${state}`}>${STATE_WORDS[state]}</span></p>
    ${p.geometry_problem && html`<p class="error">The stored outline cannot be drawn: ${p.geometry_problem}</p>`}
    <dl class="facts">
      <div><dt>Rested</dt><dd>${isOccupied(p) ? 'grazed now' : rested === null ? 'never grazed' : `${rested} days`}</dd></div>
      <div><dt>Rest target</dt><dd>${p.rest_days_target === null ? '—' : `${p.rest_days_target} days`}</dd></div>
      <div><dt>Acres</dt><dd>${p.acres ?? '—'}${drawn !== null && html` <span class="badge watch" title="The acres given differ from the drawn outline's">drawn ${drawn.toFixed(1)}</span>`}</dd></div>
    </dl>
    <h3>In this paddock</h3>
    ${inHere.length === 0 && !(p.occupied_by && isOccupied(p)) && html`<p class="muted">Nobody.</p>`}
    <ul class="occupants">
      ${inHere.map(
        (g) => html`<li key=${g.id}><button type="button" class="button secondary"
          onClick=${() => onMode({ kind: 'move', group: { id: g.id, name: g.name }, from: p.id })}>Move ${g.name}…</button></li>`,
      )}
      ${p.occupied_by?.animals.map((a) => html`<li key=${a.id}><a href=${`/animals/${a.id}`}>${a.name ?? a.tag ?? a.id}</a></li>`)}
      ${p.occupied_by?.houses.map((h) => html`<li key=${h.id}><a href=${`/devices/${h.id}`}>${h.name}</a> (house)</li>`)}
    </ul>
    ${
      write &&
      html`<div class="actions">
      <button type="button" class="button secondary" onClick=${() => onMode({ kind: 'edit', id: p.id })}>Edit outline</button>
      <button type="button" class="button secondary" onClick=${() => onMode({ kind: 'split', id: p.id })}>Split</button>
      <a class="button link" href=${`/paddocks#${p.id}`}>Details</a>
    </div>`
    }
  <//>`;
}

function Measured({ measure }: { measure: Measure | null }) {
  const [draw, setDraw] = useState<DrawModule | null>(null);
  useEffect(() => {
    loadDraw().then(setDraw, () => {});
  }, []);
  if (!measure || !draw) return html`<p class="measure" role="status"> </p>`;
  return html`<p class="measure" role="status">
    <span>Length <strong>${draw.lengthText(measure.meters)}</strong></span>
    <span>Area <strong>${measure.squareMeters > 0 ? draw.areaText(measure.squareMeters) : '—'}</strong></span></p>`;
}

/** Drawing a new paddock: corners tapped on the map, then its name; saved with its outline. */
function DrawSheet({ farm, map, onDone }: { farm: Farm; map: FarmMap; onDone(id: string | null): void }) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [outline, setOutline] = useState<Outline | null>(null);
  const [error, setError] = useState<unknown>(null);
  const drawing = useRef<Drawing | null>(null);
  const shape = useRef<{ remove(): void } | null>(null);
  useEffect(() => {
    let live = true;
    map.busy = true;
    loadDraw().then(
      (draw) => {
        if (!live) return;
        const d = draw.draw(map.map, 'Polygon', setMeasure);
        drawing.current = d;
        d.done.then((layer) => {
          if (!layer || !live) return;
          shape.current = layer;
          setOutline(layer.toGeoJSON().geometry as Outline);
        });
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
      drawing.current?.cancel();
      shape.current?.remove();
      map.busy = false;
    };
  }, []);
  const form = useForm(async (data) => {
    if (!outline) return null;
    const draw = await loadDraw();
    const created = await api('POST', '/v1/farms/{farm}/paddocks', {
      path: { farm: farm.id },
      body: {
        name: text(data, 'name') ?? '',
        rest_days_target: number(data, 'rest_days_target'),
        acres: Math.round(draw.acresOf(outline) * 100) / 100,
        geometry: outline,
      },
    });
    onDone(created.id);
    return null;
  });
  if (!outline) {
    return html`<${Sheet} title="Draw a paddock">
      <p>Tap each corner of the paddock on the map; tap the first corner again, or Finish, to close it.</p>
      <${Measured} measure=${measure} />
      <${ErrorText} error=${error ? problemOf(error) : null} />
      <div class="actions">
        <button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>Finish</button>
        <button type="button" class="button secondary" onClick=${() => drawing.current?.undo()}>Undo corner</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>Cancel</button>
      </div><//>`;
  }
  const p = { error: form.error, idPrefix: 'new-paddock' };
  return html`<${Sheet} title="New paddock">
    <${Measured} measure=${measure} />
    <form onSubmit=${form.onSubmit} aria-label="New paddock">
      <${Field} name="name" label="Name" required ...${p} />
      <${Field} name="rest_days_target" label="Rest target (days)" type="number" min="0" step="any" ...${p} />
      <${ErrorText} error=${form.error && !['name', 'rest_days_target'].includes(form.error.param ?? '') ? form.error : null} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>Save paddock</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>Cancel</button>
      </div>
    </form><//>`;
}

/** Moving a paddock's corners in place; saved as its new outline (and the acres drawn). */
function EditSheet({ paddock, map, onDone }: { paddock: PaddockProperties; map: FarmMap; onDone(): void }) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const editing = useRef<ReturnType<DrawModule['edit']> | null>(null);
  useEffect(() => {
    let live = true;
    map.busy = true;
    const layer = map.paddockLayer(paddock.id);
    loadDraw().then((draw) => {
      if (live && layer) editing.current = draw.edit(map.map, layer, setMeasure);
    });
    return () => {
      live = false;
      editing.current?.cancel();
      map.busy = false;
    };
  }, [paddock.id]);
  const save = async () => {
    const e = editing.current;
    if (!e) return null;
    const draw = await loadDraw();
    const geometry = e.geometry();
    await api('PATCH', '/v1/paddocks/{id}', {
      path: { id: paddock.id },
      body: { geometry, acres: Math.round(draw.acresOf(geometry) * 100) / 100 },
    });
    e.save();
    editing.current = null;
    onDone();
    return 'Outline saved';
  };
  return html`<${Sheet} title=${`Edit ${paddock.name}`}>
    <p>Drag a corner to move it; drag the point in the middle of an edge to add a corner.</p>
    <${Measured} measure=${measure} />
    <div class="actions">
      <${ActionButton} label="Save outline" kind="primary" action=${save} />
      <button type="button" class="button link" onClick=${onDone}>Cancel</button>
    </div><//>`;
}

/** Splitting a paddock: a line drawn across it, the two parts previewed, the new part named. */
function SplitSheet({
  farm,
  paddock,
  geometry,
  map,
  onDone,
}: {
  farm: Farm;
  paddock: PaddockProperties;
  geometry: MapFeature['geometry'];
  map: FarmMap;
  onDone(): void;
}) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [parts, setParts] = useState<[Outline, Outline] | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const drawing = useRef<Drawing | null>(null);
  useEffect(() => {
    let live = true;
    let line: { remove(): void } | null = null;
    map.busy = true;
    loadDraw().then((draw) => {
      if (!live) return;
      const d = draw.draw(map.map, 'Line', setMeasure);
      drawing.current = d;
      d.done.then((layer) => {
        if (!layer || !live) return;
        line = layer;
        const result = draw.split(geometry as Outline, layer);
        if ('refused' in result) {
          setRefused(result.refused);
          return;
        }
        map.showPreview(result.parts);
        setParts(result.parts);
      });
    });
    return () => {
      live = false;
      drawing.current?.cancel();
      map.showPreview([]);
      line?.remove();
      map.busy = false;
    };
  }, [paddock.id, attempt]);
  const form = useForm(async (data) => {
    if (!parts) return null;
    const draw = await loadDraw();
    const [kept, added] = parts;
    const acres = (o: Outline) => Math.round(draw.acresOf(o) * 100) / 100;
    // The new paddock first: if it is refused, the old one is still whole.
    await api('POST', '/v1/farms/{farm}/paddocks', {
      path: { farm: farm.id },
      body: {
        name: text(data, 'name') ?? '',
        rest_days_target: paddock.rest_days_target,
        last_grazed_at: paddock.last_grazed_at,
        acres: acres(added),
        geometry: added,
      },
    });
    await api('PATCH', '/v1/paddocks/{id}', {
      path: { id: paddock.id },
      body: { geometry: kept, acres: acres(kept) },
    });
    onDone();
    return null;
  });
  const again = () => {
    setRefused(null);
    setParts(null);
    setAttempt((n) => n + 1);
  };
  if (!parts) {
    return html`<${Sheet} title=${`Split ${paddock.name}`}>
      <p>Draw the new fence line: tap outside the paddock, across it, and outside again; then Finish.</p>
      <${Measured} measure=${measure} />
      ${refused && html`<p class="error" role="alert">${refused}</p>`}
      <div class="actions">
        ${refused ? html`<button type="button" class="button primary" onClick=${again}>Draw again</button>` : html`<button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>Finish</button>`}
        <button type="button" class="button link" onClick=${onDone}>Cancel</button>
      </div><//>`;
  }
  return html`<${Sheet} title=${`Split ${paddock.name}`}>
    <p>The blue part keeps the name ${paddock.name}; the orange part becomes a new paddock.</p>
    <form onSubmit=${form.onSubmit} aria-label="Split the paddock">
      <${Field} name="name" label="Name of the new paddock" value=${`${paddock.name} 2`} required error=${form.error} idPrefix="split" />
      <${ErrorText} error=${form.error?.param === 'name' ? null : form.error} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>Split</button>
        <button type="button" class="button secondary" onClick=${again}>Draw again</button>
        <button type="button" class="button link" onClick=${onDone}>Cancel</button>
      </div>
    </form><//>`;
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
    return [p.id, `${p.name} — ${STATE_WORDS[state].toLowerCase()}`] as const;
  });
  return html`<${Sheet} title=${`Move ${group.name}`} onClose=${onClose}>
    <form onSubmit=${form.onSubmit} aria-label=${`Move ${group.name}`}>
      <${Field} name="to_paddock_id" label="To paddock" type="select" options=${options} required error=${form.error} idPrefix="move" />
      <${ErrorText} error=${form.error?.param ? null : form.error} />
      <div class="actions"><button type="submit" class="button primary" disabled=${form.busy || options.length === 0}>Record the move</button></div>
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
      <div><dt>Type</dt><dd>${device.type}</dd></div>
      <div><dt>Battery</dt><dd>${amount(device.battery, '%')}</dd></div>
      <div><dt>Last report</dt><dd title=${farmTime(device.last_seen_at, farm.timezone)}>${ago(device.last_seen_at)}</dd></div>
    </dl>
    <div class="actions" role="group" aria-label="Track">
      ${[1, 3, 7].map(
        (d) => html`<button type="button" class=${`button ${days === d ? 'primary' : 'secondary'}`}
          aria-pressed=${days === d} onClick=${() => setDays(days === d ? null : d)}>Track ${d} d</button>`,
      )}
      <a class="button link" href=${`/devices/${device.id}`}>Device page</a>
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

type ImportPreview = Extract<Reply<'POST', '/v1/farms/{farm}/paddocks/import'>, { dry_run: true }>['data'];

/**
 * Importing paddocks from a file (GeoJSON, KML from Google Earth, GPX from a GPS): the file is read in the
 * browser and sent as a dry run; the preview lists each feature (created, skipped or refused, with why)
 * and draws the outlines; Create stores them all, or none.
 */
function ImportSheet({
  farm,
  map,
  onClose,
  onDone,
}: {
  farm: Farm;
  map: FarmMap;
  onClose(): void;
  onDone(): void;
}) {
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<number | null>(null);
  const pick = async (event: Event) => {
    const chosen = (event.currentTarget as HTMLInputElement).files?.[0];
    setPreview(null);
    setCreated(null);
    setError(null);
    map.showPreview([]);
    if (!chosen) return;
    try {
      const content = await chosen.text();
      setFile({ name: chosen.name, content });
      const answer = await api('POST', '/v1/farms/{farm}/paddocks/import', {
        path: { farm: farm.id },
        body: { content, dry_run: true },
      });
      const rows = 'dry_run' in answer && answer.dry_run ? (answer.data as ImportPreview) : [];
      setPreview(rows);
      map.showPreview(rows.flatMap((r) => (r.geometry && r.action !== 'skip' ? [r.geometry] : [])));
    } catch (err) {
      setError(err);
    }
  };
  const toCreate = preview?.filter((r) => r.action === 'create').length ?? 0;
  const refused = preview?.filter((r) => r.action === 'refuse').length ?? 0;
  const create = async () => {
    if (!file) return null;
    const answer = await api('POST', '/v1/farms/{farm}/paddocks/import', {
      path: { farm: farm.id },
      body: { content: file.content },
    });
    map.showPreview([]);
    setPreview(null);
    setCreated(answer.data.length);
    onDone();
    return null;
  };
  return html`<${Sheet} title="Import paddocks" onClose=${onClose}>
    <p>A file from Google Earth (KML), a GPS (GPX: a closed track becomes a paddock) or a GIS (GeoJSON).</p>
    <div class="field"><label for="import-paddocks">File</label>
      <input id="import-paddocks" type="file" accept=".geojson,.json,.kml,.gpx" onChange=${pick} /></div>
    <${ErrorText} error=${error ? problemOf(error) : null} />
    ${created !== null && html`<p class="done" role="status">Created ${created} ${created === 1 ? 'paddock' : 'paddocks'}.</p>`}
    ${
      preview &&
      html`<table class="records import-preview" aria-label="Paddocks in the file">
      <thead><tr><th scope="col">Name</th><th scope="col">Acres</th><th scope="col">Result</th></tr></thead>
      <tbody>${preview.map(
        (r) => html`<tr key=${r.index} class=${r.action === 'refuse' ? 'late' : ''}>
          <td>${r.name}</td><td>${amount(r.acres)}</td>
          <td>${r.action === 'create' ? 'created' : r.action === 'skip' ? 'skipped' : 'refused'}${r.problem ? `: ${r.problem}` : ''}</td></tr>`,
      )}</tbody></table>
      ${refused > 0 && html`<p class="error" role="alert">${refused} ${refused === 1 ? 'outline is' : 'outlines are'} refused: fix the file and choose it again. Nothing is created until every outline passes.</p>`}
      <div class="actions">
        <${ActionButton} label=${`Create ${toCreate} ${toCreate === 1 ? 'paddock' : 'paddocks'}`} kind="primary"
          disabled=${toCreate === 0 || refused > 0} action=${create} />
      </div>`
    }
  <//>`;
}
