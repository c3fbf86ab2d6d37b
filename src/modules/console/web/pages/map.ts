/**
 * The Map page: the farm on one screen. Paddocks coloured by rest (tap one for its rest, who is in it and
 * its history; tap a group there to move it), houses and trackers where they last reported (tap one for
 * its track over the last days), open alerts, and the routes of planned house moves. A paddock is drawn,
 * edited or split on the map with its length and area shown while drawing (leaflet-geoman, loaded on the
 * first drawing: web/draw.ts). On a phone the map fills the screen under the header and the panels are
 * bottom sheets.
 *
 * The farm is first drawn as an SVG (web/farm-svg.ts); Leaflet (web/farm-map.ts) is loaded, and takes over
 * at the same view, when the person first pans or zooms, draws, edits, splits, imports or asks for a track
 * (issue 45: the page's first load within 80 KB; Leaflet alone is 37 KB).
 */
import { api } from '../api.ts';
import type { FarmMap } from '../farm-map.ts';
import { FarmSvg, type Wanted } from '../farm-svg.ts';
import { words } from '../i18n.ts';
import { html, type Markup, useEffect, useMemo, useRef, useState } from '../lib.ts';
import {
  type MapFeature,
  type PaddockProperties,
  type TileState,
  tileSetting,
  type View,
} from '../map-view.ts';
import { EN, ES } from '../messages/map.ts';
import { Lazy, lazy } from '../on-demand.ts';
import { useReader } from '../reader-hook.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const useLeaflet = lazy(() => import('../farm-map.ts'));
const useDrawPanels = lazy(() => import('../map-draw.ts'));
const useImportPanel = lazy(() => import('../map-import.ts'));
const usePanels = lazy(() => import('../map-panels.ts'));

/** The farm as the map gives it (GET /v1/farms/{farm}/map). */
async function loadFarmMap(farmId: string): Promise<{ farmId: string; features: MapFeature[] }> {
  const map = await api('GET', '/v1/farms/{farm}/map', { path: { farm: farmId } });
  return { farmId, features: map.features as unknown as MapFeature[] };
}

type DrawPanels = typeof import('../map-draw.ts');
type ImportPanel = typeof import('../map-import.ts');
type Panels = typeof import('../map-panels.ts');
type Mode = import('../map-panels.ts').Mode;

const w = words(EN, ES);

export function Page({ farm }: PageProps) {
  useReader();
  const loaded = useLoad(() => loadFarmMap(farm.id), [farm.id]);
  // This farm's features: after a switch of farm, none until its own are read (the page stays mounted).
  const features = {
    data: loaded.data?.farmId === farm.id ? loaded.data.features : null,
    error: loaded.error,
    reload: loaded.reload,
  };
  const element = useRef<HTMLDivElement>(null);
  const tileSet = useMemo(tileSetting, []);
  const [mode, setMode] = useState<Mode>(null);
  const [tiles, setTiles] = useState<TileState>(tileSet.url ? 'loading' : 'none');
  // Leaflet, once wanted (web/farm-map.ts); until then the SVG, and `wanted` says what the person did first.
  const [wanted, setWanted] = useState<Wanted | 'panel' | null>(null);
  const leaflet = useLeaflet(wanted !== null);
  const [map, setMap] = useState<FarmMap | null>(null);
  // The SVG's view (fitted once, and again when the note on the tiles takes room), where Leaflet takes over.
  const [fitted, setView] = useState<{ farmId: string; view: View } | null>(null);
  const view = fitted?.farmId === farm.id ? fitted.view : null;
  const onView = (next: View) => setView({ farmId: farm.id, view: next });
  const farmMap = useRef<FarmMap | null>(null);
  const onTiles = (next: TileState) => {
    // The note stays while Leaflet tries the tiles again; it takes room from the SVG, fitted again to the rest.
    setTiles((was) => (was === 'unreachable' && next === 'loading' ? was : next));
    if (next === 'unreachable' && !farmMap.current) setView(null);
  };
  // Devices that reported while the SVG is shown: their place until the features are read again.
  const [moved, setMoved] = useState<Record<string, [number, number]>>({});
  useEffect(() => setMoved({}), [features.data]);
  const reload = () => features.reload();
  const location: [number, number] | null =
    farm.lat !== null && farm.lon !== null ? [farm.lat, farm.lon] : null;
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
      if (map?.busy) return;
      if (event.type === 'device.reported') {
        const { device_id, lat, lon } = event.data;
        if (typeof device_id !== 'string' || typeof lat !== 'number' || typeof lon !== 'number') return;
        if (map) {
          if (!map.moveDevice(device_id, lat, lon)) reload();
        } else if (
          features.data?.some(
            (f) => f.properties.kind === 'device' && f.properties.id === device_id && f.geometry,
          )
        ) {
          setMoved((was) => ({ ...was, [device_id]: [lat, lon] }));
        } else reload();
        return;
      }
      reload();
    },
  );

  // Leaflet takes over from the SVG: the same features at the same view, then what the person did first.
  const module = leaflet.module;
  useEffect(() => {
    if (!module || !element.current) return;
    const made = new module.FarmMap(element.current, setMode, tileSet, onTiles, view);
    if (features.data) made.show(features.data, location);
    if (wanted === 'zoom-in') made.map.zoomIn();
    else if (wanted === 'zoom-out') made.map.zoomOut();
    else if (wanted === 'keys') made.map.getContainer().focus();
    farmMap.current = made;
    setMap(made);
    return () => {
      made.destroy();
      farmMap.current = null;
      setMap(null);
    };
  }, [module]);
  // Another farm (the page stays mounted): Leaflet forgets this one and fits the next when it is shown.
  const shownFarm = useRef(farm.id);
  useEffect(() => {
    if (shownFarm.current === farm.id) return;
    shownFarm.current = farm.id;
    map?.forget();
  }, [farm.id]);

  useEffect(() => {
    if (features.data && map && !map.busy) map.show(features.data, location);
  }, [features.data]);

  const paddockOf = (id: string) =>
    features.data?.find(
      (f): f is MapFeature<PaddockProperties> => f.properties.kind === 'paddock' && f.properties.id === id,
    );
  const selectedPaddock = mode && 'id' in mode && mode.kind === 'paddock' ? mode.id : null;
  useEffect(() => map?.highlight(selectedPaddock), [selectedPaddock, features.data, map]);
  useEffect(() => {
    if (mode?.kind !== 'device') map?.showTrack([]);
  }, [mode, map]);
  // Drawing, editing, splitting and importing happen on Leaflet.
  const onLeaflet =
    mode?.kind === 'draw' || mode?.kind === 'edit' || mode?.kind === 'split' || mode?.kind === 'import';
  useEffect(() => {
    if (onLeaflet && !wanted) setWanted('panel');
  }, [onLeaflet]);
  const needMap = () => setWanted((was) => was ?? 'panel');

  const write = can('paddocks', 'write');
  const close = () => setMode(null);
  /** After an edit or a split: the map again, with the paddock's panel. */
  const backTo = (id: string) => {
    reload();
    setMode({ kind: 'paddock', id });
  };
  // The panels' module comes with the first tap (web/map-panels.ts), not with the page.
  // (Keyed: a Lazy of another module in the same place, a drawing's panel, is another component.)
  const panels = (show: (m: Panels) => Markup) => html`<${Lazy} key="panels" use=${usePanels}>${show}<//>`;
  const sheet = (): Markup => {
    if (!mode) return null;
    if (onLeaflet && !map)
      return html`<${Loading} error=${leaflet.error ? problemOf(leaflet.error) : null} />`;
    switch (mode.kind) {
      case 'paddock': {
        const f = paddockOf(mode.id);
        return f
          ? panels(
              (m) => html`<${m.PaddockSheet} paddock=${f.properties} timezone=${farm.timezone} write=${write}
              onMode=${setMode} onClose=${close} />`,
            )
          : null;
      }
      case 'device': {
        const f = features.data?.find((x) => x.properties.kind === 'device' && x.properties.id === mode.id);
        return f?.properties.kind === 'device'
          ? panels(
              (m) =>
                html`<${m.DeviceSheet} device=${f.properties} farm=${farm} map=${map} onNeedMap=${needMap} onClose=${close} />`,
            )
          : null;
      }
      case 'alert': {
        const f = features.data?.find((x) => x.properties.kind === 'alert' && x.properties.id === mode.id);
        if (f?.properties.kind !== 'alert') return null;
        return panels((m) => html`<${m.AlertSheet} alert=${f.properties} onClose=${close} />`);
      }
      case 'route': {
        const f = features.data?.find(
          (x) => x.properties.kind === 'route' && x.properties.command_id === mode.id,
        );
        if (f?.properties.kind !== 'route') return null;
        const route = f.properties;
        const to = paddockOf(route.paddock_id)?.properties.name ?? w('a_paddock');
        return panels(
          (m) => html`<${m.RouteSheet} route=${route} to=${to} timezone=${farm.timezone} onClose=${close} />`,
        );
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
        return panels(
          (m) => html`<${m.MoveSheet} farm=${farm} group=${mode.group} from=${mode.from} paddocks=${paddocks}
          onDone=${() => {
            reload();
            setMode({ kind: 'paddock', id: mode.from });
          }} onClose=${() => setMode({ kind: 'paddock', id: mode.from })} />`,
        );
      }
    }
  };
  const drawing = mode?.kind === 'draw' || mode?.kind === 'edit' || mode?.kind === 'split';
  // The import's preview is on the map until the sheet closes.
  useEffect(() => {
    if (mode?.kind !== 'import') map?.showPreview([]);
  }, [mode?.kind, map]);
  const shown = sheet();
  return html`<section class="map-page" aria-label=${w('farm_map')}>
    <h1 class="visually-hidden">${w('title')}</h1>
    <div class="map-main">
      <div class="map-area">
        <div class="map-canvas" ref=${element}></div>
        ${
          !map &&
          features.data &&
          html`<${FarmSvg} features=${features.data} location=${location} view=${view} onView=${onView}
            selected=${selectedPaddock} moved=${moved}
            tiles=${tileSet} tileState=${tiles} onTiles=${onTiles} onPick=${setMode}
            onWant=${(why: Wanted) => setWanted((was) => was ?? why)} />`
        }
        ${
          !shown &&
          write &&
          html`<div class="map-tools">
          <button type="button" class="button primary" onClick=${() => setMode({ kind: 'draw' })}>${w('draw')}</button>
          <button type="button" class="button secondary" onClick=${() => setMode({ kind: 'import' })}>${w('import')}</button>
          <a class="button secondary" download href=${`/v1/farms/${encodeURIComponent(farm.id)}/map?download=true`}>${w('export')}</a>
        </div>`
        }
        ${!features.data && html`<div class="map-note"><${Loading} error=${features.error} retry=${features.reload} /></div>`}
        ${features.data && !features.data.some((f) => f.geometry) && !drawing && html`<p class="map-note">${w('empty')}</p>`}
      </div>
      ${tiles === 'unreachable' && html`<p class="map-tiles-note" role="status">${w('no_tiles')}</p>`}
    </div>
    ${shown && html`<div class="map-sheet">${shown}</div>`}
  </section>`;
}
