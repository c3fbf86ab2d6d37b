/**
 * The farm on a Leaflet map (the Map page): paddocks coloured by their rest, houses and trackers at their
 * last position, open alerts where their subject is, the routes of planned house moves and one house's
 * track. Tiles come from the operator's setting (the page's `farmstead-map-tiles` meta tag); with none set,
 * or none reachable, the farm draws on a plain background, so the map works on a farm network offline.
 */
import L, { type Bounds, type Layer, type LayerGroup, type LeafletMap } from 'leaflet';
import { t } from './i18n.ts';
import { linkStyleSheet } from './lib.ts';
import {
  type AlertProperties,
  type DeviceProperties,
  farmView,
  type MapFeature,
  PADDOCK_COLOURS,
  type Picked,
  pointOf,
  restState,
  TILE_MAX_ZOOM,
  type TileSetting,
  type TileState,
  type View,
} from './map-view.ts';

// Leaflet's style sheet, served beside the library (vendor/leaflet.css at the same asset version), after the
// page's own (web/map.css, linked by web/map-view.ts), in the order they had before.
linkStyleSheet(new URL('../../../../vendor/leaflet.css', import.meta.url));

/** A split's kept part, then its new part (the split sheet names them by these colours). */
const PREVIEW_COLOURS = ['#1a5fb4', '#b85c00'];

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

/** The farm's map in `element`. `onPick` hears every tap on a shape; a tap on empty ground picks null. */
export class FarmMap {
  readonly map: LeafletMap;
  private readonly farmLayer: LayerGroup;
  private readonly trackLayer: LayerGroup;
  private readonly previewLayer: LayerGroup;
  private readonly paddocks = new Map<string, Layer>();
  private readonly devices = new Map<string, Layer>();
  /** The features and farm location to fit the view to, until it has been fitted once. */
  private unfitted: { features: readonly MapFeature[]; center: [number, number] | null } | null = null;
  private fitted = false;
  /** Between Leaflet's zoomstart and zoomend: a view set then is dropped by Leaflet, so a fit waits. */
  private zooming = false;
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
    onTiles: (state: TileState) => void,
    /** Where the SVG drawn before Leaflet was looking (web/farm-svg.ts): Leaflet takes over there. */
    view: View | null = null,
  ) {
    this.onPick = onPick;
    // zoomSnap: farmView (web/map-view.ts) snaps the fitted zoom the same way.
    this.map = L.map(element, { zoomSnap: 0.25, tapTolerance: 20, zoomControl: false });
    // Leaflet's own zoom buttons, named in the reader's language (their titles are their names).
    L.control.zoom({ zoomInTitle: t('map.zoom_in'), zoomOutTitle: t('map.zoom_out') }).addTo(this.map);
    this.map.attributionControl?.setPrefix(false);
    // Paddock names above the paddocks but under the houses, trackers and alerts standing in them.
    this.map.createPane('labels').style.zIndex = '450';
    this.farmLayer = L.layerGroup().addTo(this.map);
    this.trackLayer = L.layerGroup().addTo(this.map);
    this.previewLayer = L.layerGroup().addTo(this.map);
    if (view) {
      this.map.setView(view.center, view.zoom);
      this.fitted = true;
    }
    // The map shares the screen with the panel beside or under it: it follows its box as that changes.
    this.resize = new ResizeObserver(() => {
      this.map.invalidateSize();
      if (this.unfitted) this.fit(this.unfitted.features, this.unfitted.center);
      this.keepSelectedInView();
    });
    this.resize.observe(element);
    // Leaflet ignores a setView while a zoom animates (a tap on + just before another farm was chosen): the
    // fit is kept and made when the zoom ends, or the next farm would stay off the view.
    this.map.on('zoomstart', () => {
      this.zooming = true;
    });
    this.map.on('zoomend', () => {
      this.zooming = false;
      if (this.unfitted) this.fit(this.unfitted.features, this.unfitted.center);
    });
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
    const layer = L.tileLayer(tiles.url, { attribution: tiles.attribution, maxZoom: TILE_MAX_ZOOM });
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
        const marker = L.marker(at, markerOptions(p));
        add(marker, { kind: p.kind, id: p.id });
        if (p.kind === 'device') this.devices.set(p.id, marker);
      }
    }
    if (!this.fitted) this.fit(features, center);
  }

  /**
   * The view that fits the farm (web/map-view.ts `farmView`, which the SVG drawn before Leaflet used too, so
   * Leaflet takes over at the same view), once. A map with no size yet (its box not laid out) is fitted when
   * its box has one: a fit into 0 × 0 px would zoom out to nothing and leave shapes outside the view. A map
   * in the middle of a zoom is fitted when the zoom ends.
   */
  private fit(features: readonly MapFeature[], center: [number, number] | null): void {
    const box = this.map.getContainer();
    if (box.clientWidth === 0 || box.clientHeight === 0 || this.zooming) {
      this.unfitted = { features, center };
      return;
    }
    this.unfitted = null;
    this.fitted = true;
    const view = farmView(features, center, box.clientWidth, box.clientHeight);
    this.map.setView(view.center, view.zoom);
  }

  /**
   * Another farm is chosen: its shapes go, and the next farm's are fitted when shown, as the first farm's
   * were. (The map is kept, not removed and made again: removing it during a zoom's animation throws.)
   */
  forget(): void {
    for (const layer of [this.farmLayer, this.trackLayer, this.previewLayer]) layer.clearLayers();
    this.paddocks.clear();
    this.devices.clear();
    this.selected = null;
    this.fitted = false;
    this.unfitted = null;
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
