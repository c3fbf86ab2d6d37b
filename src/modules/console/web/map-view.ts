/**
 * What the Map page's two drawings of the farm share: the features GET /v1/farms/{farm}/map gives, a
 * paddock's rest and its colour, the operator's tiles, the view that fits the farm and the panels' `Sheet`.
 * The page first draws the farm as an SVG (web/farm-svg.ts, a few KB) and loads Leaflet (web/farm-map.ts,
 * about 45 KB with its style sheet) when the person first pans, zooms, draws or asks for a track (issue 45's
 * page weight); both place the farm with `farmView` and `project`, so Leaflet takes over at the same view.
 */
import { farmCentre, isFarFromFarm, type LonLat } from '../../../domain/paddock-import.ts';
import type { Schema } from './api.ts';
import { occupiedNow, pastTarget } from './grazing.ts';
import { t } from './i18n.ts';
import { html, linkStyleSheet, type Markup } from './lib.ts';

// The Map page's own style sheet (web/map.css, not in styles.css: no other page loads it). Leaflet's own is
// linked by web/farm-map.ts after it, in the order they had when both came with the page.
linkStyleSheet(new URL('./map.css', import.meta.url));

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

/** Whether the operator's tiles are drawn: none set, on their way, some shown, or none could be loaded. */
export type TileState = 'none' | 'loading' | 'shown' | 'unreachable';

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

/** The tiles' deepest zoom (OpenStreetMap's; Leaflet's tile layer is given the same). */
export const TILE_MAX_ZOOM = 19;

/** A paddock's state in a word (also its colour on the map, and its legend). */
export type RestState = 'occupied' | 'ready' | 'resting' | 'unknown';

export function restState(p: PaddockProperties): RestState {
  if (occupiedNow(p)) return 'occupied';
  if (p.rest_days === null || p.rest_days_target === null) return 'unknown';
  return pastTarget(p) ? 'ready' : 'resting';
}

export const PADDOCK_COLOURS: Record<RestState, string> = {
  occupied: '#285a8a',
  ready: '#22662f',
  resting: '#8a5300',
  unknown: '#56605a',
};

/** A device's or an alert's place, [lat, lon]. */
export function pointOf(feature: MapFeature): [number, number] | null {
  const g = feature.geometry;
  if (g?.type !== 'Point' || !Array.isArray(g.coordinates)) return null;
  const [lon, lat] = g.coordinates as number[];
  return typeof lat === 'number' && typeof lon === 'number' ? [lat, lon] : null;
}

/** A paddock's drawable outline: a Polygon's or MultiPolygon's rings of [lon, lat]; none otherwise. */
export function ringsOf(feature: MapFeature): number[][][] {
  const g = feature.geometry;
  if (g?.type === 'Polygon') return g.coordinates as number[][][];
  if (g?.type === 'MultiPolygon') return (g.coordinates as number[][][][]).flat();
  return [];
}

const TILE_SIZE = 256;
const MAX_LAT = 85.0511287798;
const RAD = Math.PI / 180;

/** Web Mercator (EPSG:3857, as Leaflet and the tile servers): [lat, lon] to pixels at `zoom`. */
export function project(lat: number, lon: number, zoom: number): [number, number] {
  const scale = TILE_SIZE * 2 ** zoom;
  const sin = Math.sin(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * RAD);
  return [scale * (0.5 + lon / 360), scale * (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI))];
}

function unproject(x: number, y: number, zoom: number): [number, number] {
  const scale = TILE_SIZE * 2 ** zoom;
  const lat = (2 * Math.atan(Math.exp((0.5 - y / scale) * 2 * Math.PI)) - Math.PI / 2) / RAD;
  return [lat, (x / scale - 0.5) * 360];
}

/** Where the map looks: its middle [lat, lon] and zoom. */
export interface View {
  center: [number, number];
  zoom: number;
}

/** Room around the farm; at the bottom, for the tools' row on a phone. */
const PADDING_TOP_LEFT = [24, 24] as const;
const PADDING_BOTTOM_RIGHT = [24, 84] as const;
const FIT_MAX_ZOOM = 18;
/** Leaflet's zoomSnap on this map. */
const ZOOM_SNAP = 0.25;

/**
 * The view that fits the farm into a box of `width` × `height` px, as Leaflet's fitBounds computes it
 * (the snapped zoom, the padding's offset): every paddock's corners and every device and alert, less the
 * outliers far from the farm (a paddock imported from another continent must not make the view two
 * continents wide; src/domain/paddock-import.ts says how far is far); else the farm's location, else the
 * world.
 */
export function farmView(
  features: readonly MapFeature[],
  location: [number, number] | null,
  width: number,
  height: number,
): View {
  const points: [number, number][] = [];
  for (const f of features) {
    if (f.properties.kind === 'paddock') {
      const corners = ringsOf(f).flat();
      if (corners.length === 0) continue;
      const lats = corners.map((c) => c[1] as number);
      const lons = corners.map((c) => c[0] as number);
      points.push([Math.min(...lats), Math.min(...lons)], [Math.max(...lats), Math.max(...lons)]);
    } else if (f.properties.kind === 'device' || f.properties.kind === 'alert') {
      const at = pointOf(f);
      if (at) points.push(at);
    }
  }
  const centre = farmCentre(
    location ? [location[1], location[0]] : null,
    points.map(([lat, lon]): LonLat => [lon, lat]),
  );
  const near = centre ? points.filter(([lat, lon]) => !isFarFromFarm(centre, [lon, lat])) : points;
  const fitted = near.length > 0 ? near : points;
  if (fitted.length === 0) return location ? { center: location, zoom: 15 } : { center: [20, 0], zoom: 2 };
  const south = Math.min(...fitted.map((p) => p[0]));
  const north = Math.max(...fitted.map((p) => p[0]));
  const west = Math.min(...fitted.map((p) => p[1]));
  const east = Math.max(...fitted.map((p) => p[1]));
  const [x0, y0] = project(north, west, 0);
  const [x1, y1] = project(south, east, 0);
  const scale = Math.min(
    (width - PADDING_TOP_LEFT[0] - PADDING_BOTTOM_RIGHT[0]) / (x1 - x0),
    (height - PADDING_TOP_LEFT[1] - PADDING_BOTTOM_RIGHT[1]) / (y1 - y0),
  );
  let zoom = Math.log2(scale);
  if (Number.isNaN(zoom)) zoom = Number.POSITIVE_INFINITY;
  // Leaflet's snapping: within 1 % of a step is that step, else the step below.
  zoom = Math.round(zoom / (ZOOM_SNAP / 100)) * (ZOOM_SNAP / 100);
  zoom = Math.floor(zoom / ZOOM_SNAP) * ZOOM_SNAP;
  zoom = Math.max(0, Math.min(FIT_MAX_ZOOM, zoom));
  const [sx, sy] = project(south, west, zoom);
  const [nx, ny] = project(north, east, zoom);
  const center = unproject(
    (sx + nx) / 2 + (PADDING_BOTTOM_RIGHT[0] - PADDING_TOP_LEFT[0]) / 2,
    (sy + ny) / 2 + (PADDING_BOTTOM_RIGHT[1] - PADDING_TOP_LEFT[1]) / 2,
    zoom,
  );
  return { center, zoom };
}

/**
 * The view moved (not zoomed) just enough that `point` is at least `padding` px inside a box of `width` ×
 * `height`, as Leaflet's panInside does; the same view when it already is.
 */
export function panInside(
  view: View,
  width: number,
  height: number,
  point: [number, number],
  padding: number,
): View {
  const [cx, cy] = project(view.center[0], view.center[1], view.zoom);
  const [px, py] = project(point[0], point[1], view.zoom);
  const shift = (p: number, c: number, half: number) => {
    const room = half - padding;
    if (room <= 0) return p - c;
    return p < c - room ? p - (c - room) : p > c + room ? p - (c + room) : 0;
  };
  const dx = shift(px, cx, width / 2);
  const dy = shift(py, cy, height / 2);
  return dx === 0 && dy === 0 ? view : { center: unproject(cx + dx, cy + dy, view.zoom), zoom: view.zoom };
}

/** The middle of a paddock's outline's box, [lat, lon] (where Leaflet's getBounds().getCenter() is). */
export function middleOf(feature: MapFeature): [number, number] | null {
  const corners = ringsOf(feature).flat();
  if (corners.length === 0) return null;
  const lats = corners.map((c) => c[1] as number);
  const lons = corners.map((c) => c[0] as number);
  return [(Math.min(...lats) + Math.max(...lats)) / 2, (Math.min(...lons) + Math.max(...lons)) / 2];
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
