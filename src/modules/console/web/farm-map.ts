/**
 * The farm on a Leaflet map (the Map page): paddocks coloured by their rest, houses and trackers at their
 * last position, open alerts where their subject is, the routes of planned house moves and one house's
 * track. Tiles come from the operator's setting (the page's `farmstead-map-tiles` meta tag); with none set,
 * or none reachable, the farm draws on a plain background, so the map works on a farm network offline.
 */
import L, { type Bounds, type Layer, type LayerGroup, type LeafletMap } from 'leaflet';
import { farmCentre, isFarFromFarm, type LonLat } from '../../../domain/paddock-import.ts';
import type { Schema } from './api.ts';
import { occupiedNow, pastTarget } from './grazing.ts';
import { t } from './i18n.ts';
import { html, type Markup } from './lib.ts';

// The Map page's own style sheet (web/map.css, not in styles.css: no other page loads it), then Leaflet's,
// served beside the library (vendor/leaflet.css at the same asset version): in the order they had before.
for (const href of ['./map.css', '../../../../vendor/leaflet.css']) {
  const sheet = document.createElement('link');
  sheet.rel = 'stylesheet';
  sheet.href = new URL(href, import.meta.url).href;
  document.head.append(sheet);
}

type Geometry = { type: string; coordinates: unknown };
/** A paddock as the map gives it: the Paddock record (with what grazing derives: occupied_by, rest_days). */
export type PaddockProperties = Omit<Schema<'Paddock'>, 'geometry'> & {
  kind: 'paddock';
  /** Why a stored outline is not drawn (it fails today's check). */
  geometry_problem?: string;
};
export interface DeviceProperties {
  kind: 'device';
  id: string;
  name: string;
  type: string;
  battery: number | null;
  last_seen_at: string | null;
  paddock_id: string | null;
  group_id: string | null;
  animal_id: string | null;
}
export interface AlertProperties {
  kind: 'alert';
  id: string;
  rule: string;
  severity: string;
  status: string;
  title: string;
  subject_type: string;
  subject_id: string;
  /** The Alert's words (web/alert-text.ts writes its title in the reader's language from them). */
  words?: unknown;
}
export interface RouteProperties {
  kind: 'route';
  device_id: string;
  command_id: string;
  paddock_id: string;
  meters_per_day: number | null;
  distance_m: number | null;
  arrival_at: string | null;
}
export type MapProperties = PaddockProperties | DeviceProperties | AlertProperties | RouteProperties;
export interface MapFeature<P extends MapProperties = MapProperties> {
  type: 'Feature';
  geometry: Geometry | null;
  properties: P;
}

/** What a tap on the map chose. */
export type Picked =
  | { kind: 'paddock'; id: string }
  | { kind: 'device'; id: string }
  | { kind: 'alert'; id: string }
  | { kind: 'route'; id: string };

export interface TileSetting {
  url: string | null;
  attribution: string;
}

/** The operator's tiles, from the page's meta tags (`none` or no tag: no tiles). */
export function tileSetting(): TileSetting {
  const meta = (name: string) =>
    document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content.trim() ?? '';
  const url = meta('farmstead-map-tiles');
  return { url: url && url !== 'none' ? url : null, attribution: meta('farmstead-map-attribution') };
}

/** A paddock's state in a word (also its colour on the map, and its legend). */
export type RestState = 'occupied' | 'ready' | 'resting' | 'unknown';

export function restState(p: PaddockProperties): RestState {
  if (occupiedNow(p)) return 'occupied';
  if (p.rest_days === null || p.rest_days_target === null) return 'unknown';
  return pastTarget(p) ? 'ready' : 'resting';
}

/** A split's kept part, then its new part (the split sheet names them by these colours). */
const PREVIEW_COLOURS = ['#1a5fb4', '#b85c00'];

const PADDOCK_COLOURS: Record<RestState, string> = {
  occupied: '#285a8a',
  ready: '#22662f',
  resting: '#8a5300',
  unknown: '#56605a',
};

/** GeoJSON positions [lon, lat] as Leaflet's [lat, lon], at any depth (Polygon or MultiPolygon). */
export function latLngsOf(coordinates: unknown): unknown {
  if (Array.isArray(coordinates) && typeof coordinates[0] === 'number') {
    return [coordinates[1], coordinates[0]];
  }
  return Array.isArray(coordinates) ? coordinates.map(latLngsOf) : [];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function pointOf(feature: MapFeature): [number, number] | null {
  const g = feature.geometry;
  if (g?.type !== 'Point' || !Array.isArray(g.coordinates)) return null;
  const [lon, lat] = g.coordinates as number[];
  return typeof lat === 'number' && typeof lon === 'number' ? [lat, lon] : null;
}

/** The farm's map in `element`. `onPick` hears every tap on a shape; a tap on empty ground picks null. */
export class FarmMap {
  readonly map: LeafletMap;
  private readonly farmLayer: LayerGroup;
  private readonly trackLayer: LayerGroup;
  private readonly previewLayer: LayerGroup;
  private readonly paddocks = new Map<string, Layer>();
  private readonly devices = new Map<string, Layer>();
  private fitted = false;
  private readonly resize: ResizeObserver;
  private lastPick: Event | undefined;
  private selected: string | null = null;
  private readonly onPick: (picked: Picked | null) => void;
  /** Set while a drawing or an edit has the map: taps then belong to geoman, not to the panels. */
  busy = false;

  constructor(
    element: HTMLElement,
    onPick: (picked: Picked | null) => void,
    tiles: TileSetting,
    onTiles: (state: 'none' | 'loading' | 'shown' | 'unreachable') => void,
  ) {
    this.onPick = onPick;
    this.map = L.map(element, { zoomSnap: 0.25, tapTolerance: 20, zoomControl: false });
    // Leaflet's own zoom buttons, named in the reader's language (their titles are their names).
    L.control.zoom({ zoomInTitle: t('map.zoom_in'), zoomOutTitle: t('map.zoom_out') }).addTo(this.map);
    this.map.attributionControl?.setPrefix(false);
    // Paddock names above the paddocks but under the houses, trackers and alerts standing in them.
    this.map.createPane('labels').style.zIndex = '450';
    this.farmLayer = L.layerGroup().addTo(this.map);
    this.trackLayer = L.layerGroup().addTo(this.map);
    this.previewLayer = L.layerGroup().addTo(this.map);
    // The map shares the screen with the panel beside or under it: it follows its box as that changes.
    this.resize = new ResizeObserver(() => {
      this.map.invalidateSize();
      this.keepSelectedInView();
    });
    this.resize.observe(element);
    this.map.on('click', (event) => {
      // A tap on a shape reaches the map too (geoman needs taps on shapes while drawing): not a tap on grass.
      if (!this.busy && event.originalEvent !== this.lastPick) this.onPick(null);
    });
    if (!tiles.url) {
      onTiles('none');
      return;
    }
    // Tiles that never load (no internet on the farm, a tile server down) are taken away, so the plain
    // background shows instead of grey squares; the farm's own shapes never depended on them.
    const layer = L.tileLayer(tiles.url, { attribution: tiles.attribution, maxZoom: 19 });
    let loaded = 0;
    let failed = 0;
    onTiles('loading');
    layer.on('tileload', () => {
      loaded++;
      onTiles('shown');
    });
    layer.on('tileerror', () => {
      failed++;
    });
    layer.on('load', () => {
      if (loaded === 0 && failed > 0) {
        // After Leaflet's own handling of this event (removing the layer inside it breaks Leaflet); the page
        // says so once the grey squares are gone.
        setTimeout(() => {
          layer.remove();
          onTiles('unreachable');
        }, 0);
      }
    });
    layer.addTo(this.map);
  }

  /** Draws the farm's features; the first time, fits the map to them (or to `center`). */
  show(features: readonly MapFeature[], center: [number, number] | null): void {
    this.farmLayer.clearLayers();
    this.paddocks.clear();
    this.devices.clear();
    const bounds: [number, number][] = [];
    const add = (layer: Layer, picked: Picked) => {
      layer.on('click', (event) => {
        if (this.busy) return;
        this.lastPick = event.originalEvent;
        this.onPick(picked);
      });
      layer.addTo(this.farmLayer);
    };
    for (const f of features) {
      const p = f.properties;
      if (p.kind === 'paddock') {
        const g = f.geometry;
        if (!g || (g.type !== 'Polygon' && g.type !== 'MultiPolygon')) continue;
        const colour = PADDOCK_COLOURS[restState(p)];
        const shape = L.polygon(latLngsOf(g.coordinates), {
          color: colour,
          weight: 2,
          fillColor: colour,
          fillOpacity: 0.25,
          className: `map-paddock paddock-${p.id}`,
        });
        add(shape, { kind: 'paddock', id: p.id });
        this.paddocks.set(p.id, shape);
        const box = shape.getBounds();
        if (box.isValid()) {
          bounds.push(...cornersOf(box));
          // The name sits on the paddock's top edge, not its middle, where the houses, trackers and alerts
          // standing in it would cover it (and it them).
          L.tooltip({
            permanent: true,
            direction: 'top',
            className: 'map-label',
            pane: 'labels',
            interactive: false,
          })
            .setLatLng([box.getNorthEast().lat, box.getCenter().lng])
            .setContent(p.name)
            .addTo(this.farmLayer);
        }
      } else if (p.kind === 'route' && f.geometry?.type === 'LineString') {
        const latlngs = latLngsOf(f.geometry.coordinates) as [number, number][];
        L.polyline(latlngs, {
          color: '#1d2320',
          weight: 3,
          dashArray: '6 6',
          className: 'map-route',
          interactive: false,
        }).addTo(this.farmLayer);
        // A dashed line is hard to hit with a finger (the gaps take no taps): a wide invisible one takes them.
        const hit = L.polyline(latlngs, { weight: 24, opacity: 0, className: 'map-route-hit' });
        add(hit, { kind: 'route', id: p.command_id });
      } else if (p.kind === 'device' || p.kind === 'alert') {
        const at = pointOf(f);
        if (!at) continue;
        bounds.push(at);
        const marker = L.marker(at, markerOptions(p));
        add(marker, { kind: p.kind, id: p.id });
        if (p.kind === 'device') this.devices.set(p.id, marker);
      }
    }
    if (!this.fitted) {
      this.fitted = true;
      // The farm, not every outlier: a paddock imported from another continent must not make the view two
      // continents wide (the import warns about it; src/domain/paddock-import.ts says how far is far).
      const centre = farmCentre(
        center ? [center[1], center[0]] : null,
        bounds.map(([lat, lon]): LonLat => [lon, lat]),
      );
      const near = centre ? bounds.filter(([lat, lon]) => !isFarFromFarm(centre, [lon, lat])) : bounds;
      bounds.splice(0, bounds.length, ...(near.length > 0 ? near : bounds));
      // Room at the bottom for the tools' row on a phone.
      const room = {
        paddingTopLeft: [24, 24] as [number, number],
        paddingBottomRight: [24, 84] as [number, number],
      };
      if (bounds.length > 0) this.map.fitBounds(L.latLngBounds(bounds), { ...room, maxZoom: 18 });
      else if (center) this.map.setView(center, 15);
      else this.map.setView([20, 0], 2);
    }
  }

  /** Moves a device's marker to where it last reported; false when it is not on the map yet. */
  moveDevice(id: string, lat: number, lon: number): boolean {
    const marker = this.devices.get(id);
    marker?.setLatLng([lat, lon]);
    return marker !== undefined;
  }

  /** The drawn shape of a paddock (to edit it in place). */
  paddockLayer(id: string): Layer | undefined {
    return this.paddocks.get(id);
  }

  /** The highlighted paddock's middle stays on screen when a panel takes part of it. */
  private keepSelectedInView(): void {
    const layer = this.selected ? this.paddocks.get(this.selected) : undefined;
    if (layer) this.map.panInside(layer.getBounds().getCenter(), { padding: [40, 40] });
  }

  /** Highlights one paddock (the one whose panel is open). */
  highlight(id: string | null): void {
    this.selected = id;
    for (const [paddockId, layer] of this.paddocks) {
      layer.setStyle({ weight: paddockId === id ? 5 : 2 });
    }
    // The panel that opens with it may have just taken part of the screen.
    this.map.invalidateSize();
    this.keepSelectedInView();
  }

  /** A house's or tracker's track, oldest first (cleared with an empty list). */
  showTrack(points: readonly { lat: number; lon: number }[]): void {
    this.trackLayer.clearLayers();
    if (points.length === 0) return;
    const line = L.polyline(
      points.map((p) => [p.lat, p.lon]),
      { color: '#b85c00', weight: 3, className: 'map-track', interactive: false },
    ).addTo(this.trackLayer);
    line.bringToFront();
    // The track is what the person asked to see: the map moves to it.
    this.map.fitBounds(line.getBounds(), { padding: [32, 32], maxZoom: 18 });
  }

  /**
   * Outlines not yet saved (a split's two parts, an import's paddocks), in turn blue and orange, and the map
   * moved to show them; cleared with an empty list.
   */
  showPreview(outlines: readonly unknown[]): void {
    this.previewLayer.clearLayers();
    const corners: [number, number][] = [];
    outlines.forEach((outline, i) => {
      const colour = PREVIEW_COLOURS[i % PREVIEW_COLOURS.length] as string;
      const layer = L.geoJSON(outline, {
        style: { color: colour, weight: 3, fillColor: colour, fillOpacity: 0.35, className: 'map-preview' },
        interactive: false,
      }).addTo(this.previewLayer);
      const box = layer.getBounds();
      if (box.isValid()) corners.push(...cornersOf(box));
    });
    if (corners.length > 0) this.map.fitBounds(L.latLngBounds(corners), { padding: [24, 24], maxZoom: 18 });
  }

  destroy(): void {
    this.resize.disconnect();
    this.map.remove();
  }
}

function cornersOf(box: Bounds): [number, number][] {
  const sw = box.getSouthWest();
  const ne = box.getNorthEast();
  return [
    [sw.lat, sw.lng],
    [ne.lat, ne.lng],
  ];
}

function markerOptions(p: DeviceProperties | AlertProperties) {
  if (p.kind === 'alert') {
    return {
      // A badge up and to the right of its place, so the house or tracker it is about stays visible.
      icon: L.divIcon({
        className: `map-alert ${p.severity}`,
        html: '<span aria-hidden="true">!</span>',
        iconSize: [28, 28],
        iconAnchor: [-4, 34],
      }),
      title: t(p.severity === 'urgent' ? 'map.urgent_alert' : 'map.alert', { title: p.title }),
      zIndexOffset: 1000,
    };
  }
  const house = p.type === 'house';
  return {
    icon: L.divIcon({
      className: house ? 'map-house' : 'map-tracker',
      html: house
        ? `<span class="map-pin" aria-hidden="true">${escapeHtml(t('map.house_pin'))}</span><span class="map-name">${escapeHtml(p.name)}</span>`
        : '',
      iconSize: house ? [36, 36] : [22, 22],
    }),
    title: p.name,
    zIndexOffset: house ? 500 : 0,
  };
}

/** A panel of the Map page: a bottom sheet on a phone, beside the map on a wide screen. */
export function Sheet({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose?: () => void;
  children: Markup;
}) {
  return html`<div class="sheet" role="region" aria-label=${title}>
    <div class="sheet-head"><h2>${title}</h2>
      ${onClose && html`<button type="button" class="button link sheet-close" onClick=${onClose} aria-label=${t('map.close')}>${t('map.close')}</button>`}</div>
    ${children}
  </div>`;
}
