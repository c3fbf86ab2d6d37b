/**
 * Drawing on the farm map with leaflet-geoman (free edition), loaded only when a person starts drawing or
 * editing (it is about three times Leaflet's size; the Map page's first load stays within its budget without
 * it). Geoman's free edition has no measurements (that is its paid edition), so the length and area shown
 * while drawing are measured here: Leaflet's geodesic distance for the length and @turf/area (the same
 * geodesic area the server computes `acres` with) for the area.
 */
import '@geoman-io/leaflet-geoman-free';
import area from '@turf/area';
import L, { type Layer, type LeafletEvent, type LeafletMap } from 'leaflet';
import { formatArea, formatLength, SQUARE_METRES_PER_ACRE } from '../../../domain/display-units.ts';
import { type Position, splitOutline } from '../../../domain/paddock-split.ts';
import { reader, words } from './i18n.ts';
import { linkStyleSheet } from './lib.ts';
import { EN, ES } from './messages/map-draw.ts';

const w = words(EN, ES);

linkStyleSheet(new URL('../../../../vendor/leaflet-geoman.css', import.meta.url));

export { splitOutline };

/** What is measured while drawing: the length of the line (a polygon's perimeter) and the area enclosed. */
export interface Measure {
  meters: number;
  squareMeters: number;
}

export type Outline = { type: 'Polygon' | 'MultiPolygon'; coordinates: unknown };

export function acresOf(geometry: Outline): number {
  return area(geometry as Parameters<typeof area>[0]) / SQUARE_METRES_PER_ACRE;
}

/** "320 m", "1.25 km"; "1,050 ft", "1.25 mi" in US units. */
export function lengthText(meters: number): string {
  return formatLength(meters, reader);
}

/** "1.23 ha"; "3.04 ac" in US units (the paddock pages show a paddock's area the same way). */
export function areaText(squareMeters: number): string {
  return formatArea(squareMeters, reader);
}

type LatLng = { lat: number; lng: number };

/** A line's or a closed ring's length and, for a ring of three corners or more, its area. */
export function measure(map: LeafletMap, corners: readonly LatLng[], closed: boolean): Measure {
  let meters = 0;
  for (let i = 1; i < corners.length; i++) {
    meters += map.distance(corners[i - 1] as LatLng, corners[i] as LatLng);
  }
  if (!closed || corners.length < 3) return { meters, squareMeters: 0 };
  meters += map.distance(corners[corners.length - 1] as LatLng, corners[0] as LatLng);
  const ring = [...corners, corners[0] as LatLng].map((c) => [c.lng, c.lat]);
  return { meters, squareMeters: area({ type: 'Polygon', coordinates: [ring] }) };
}

/** The corners of a drawn polygon or line (a polygon's outer ring; the first part of a multi-shape). */
function cornersOf(layer: Layer): LatLng[] {
  let latlngs = layer.getLatLngs() as unknown;
  while (Array.isArray(latlngs) && Array.isArray(latlngs[0])) latlngs = latlngs[0];
  return Array.isArray(latlngs) ? (latlngs as LatLng[]) : [];
}

/** A drawing in progress: `done` resolves with the drawn layer, or null when cancelled. */
export interface Drawing {
  done: Promise<Layer | null>;
  /** Closes the shape with the corners placed so far (geoman's own Finish). */
  finish(): void;
  /** Takes back the last corner. */
  undo(): void;
  cancel(): void;
}

const PATH = { color: '#1a5fb4', weight: 3, fillColor: '#1a5fb4', fillOpacity: 0.2 };

/** Starts geoman's drawing of a polygon (a paddock) or a line (a split); measures as corners are placed. */
export function draw(map: LeafletMap, shape: 'Polygon' | 'Line', onMeasure: (m: Measure) => void): Drawing {
  let settle: (layer: Layer | null) => void = () => {};
  const done = new Promise<Layer | null>((resolve) => {
    settle = resolve;
  });
  let working: Layer | null = null;
  const closed = shape === 'Polygon';
  const update = (cursor?: LatLng) => {
    if (!working) return;
    const corners = cornersOf(working);
    onMeasure(measure(map, cursor && corners.length > 0 ? [...corners, cursor] : corners, closed));
  };
  const onStart = (event: LeafletEvent) => {
    working = event.workingLayer ?? null;
    working?.on('pm:vertexadded', () => update());
    working?.on('pm:vertexremoved', () => update());
  };
  const onMove = (event: LeafletEvent) => update(event.latlng);
  const onCreate = (event: LeafletEvent) => {
    stop();
    settle(event.layer ?? null);
  };
  const stop = () => {
    map.off('pm:drawstart', onStart);
    map.off('mousemove', onMove);
    map.off('pm:create', onCreate);
  };
  // The map was made before geoman was loaded: it gets its `pm` now.
  L.PM.reInitLayer(map);
  // The hints geoman shows beside the cursor, in the reader's language (its own Spanish says "tú").
  map.pm.setLang(
    reader.language,
    {
      tooltips: {
        firstVertex: w('hint_first'),
        continueLine: w('hint_continue'),
        finishLine: w('hint_finish_line'),
        finishPoly: w('hint_finish_polygon'),
      },
    },
    reader.language,
  );
  map.on('pm:drawstart', onStart);
  map.on('mousemove', onMove);
  map.on('pm:create', onCreate);
  map.pm.enableDraw(shape, {
    // A paddock's corners snap to its neighbours' (shared fences); a split line's ends must stay outside.
    snappable: shape === 'Polygon',
    allowSelfIntersection: false,
    continueDrawing: false,
    pathOptions: PATH,
    templineStyle: PATH,
    hintlineStyle: { ...PATH, dashArray: '5 5' },
  });
  onMeasure({ meters: 0, squareMeters: 0 });
  return {
    done,
    finish: () => map.pm.Draw[shape]._finishShape(),
    undo: () => map.pm.Draw[shape]._removeLastVertex(),
    cancel: () => {
      stop();
      map.pm.disableDraw();
      settle(null);
    },
  };
}

/** Geoman's editing of a drawn paddock in place: drag corners, tap a midpoint to add one. */
export function edit(map: LeafletMap, layer: Layer, onMeasure: (m: Measure) => void) {
  const before = layer.getLatLngs();
  const update = () => onMeasure(measure(map, cornersOf(layer), true));
  const types = ['pm:markerdrag', 'pm:edit', 'pm:vertexadded', 'pm:vertexremoved'];
  for (const type of types) layer.on(type, update);
  // The map and the paddock were made before geoman was loaded: they get their `pm` now.
  L.PM.reInitLayer(map);
  L.PM.reInitLayer(layer);
  layer.pm.enable({ allowSelfIntersection: false, snappable: true });
  update();
  const stop = () => {
    layer.pm.disable();
    for (const type of types) layer.off(type, update);
  };
  return {
    /** The outline as edited. */
    geometry: () => layer.toGeoJSON().geometry as Outline,
    save: stop,
    cancel: () => {
      stop();
      layer.setLatLngs(before);
    },
  };
}

/** The two outlines a drawn line splits a Polygon paddock into, or the reason it does not. */
export function split(geometry: Outline, line: Layer) {
  const positions = cornersOf(line).map((c): Position => [c.lng, c.lat]);
  const rings = geometry.type === 'Polygon' ? (geometry.coordinates as Position[][]) : [];
  const result = splitOutline(rings, positions);
  if ('refused' in result) return result;
  return {
    parts: result.parts.map((ring): Outline => ({ type: 'Polygon', coordinates: [ring] })) as [
      Outline,
      Outline,
    ],
  };
}
