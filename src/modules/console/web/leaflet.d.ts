/**
 * The few parts of Leaflet 1.9 that web/farm-map.ts and web/draw.ts use (Leaflet ships no type
 * declarations of its own, and @types/leaflet is not a dependency), and the parts of leaflet-geoman (free)
 * that web/draw.ts calls once the plugin has patched Leaflet (`pm` on the map and on each path).
 */
declare module 'leaflet' {
  export interface LatLng {
    lat: number;
    lng: number;
  }
  export type LatLngPair = [number, number];
  export interface Bounds {
    isValid(): boolean;
    extend(other: Bounds | LatLng | LatLngPair): this;
    pad(ratio: number): Bounds;
    getCenter(): LatLng;
    getSouthWest(): LatLng;
    getNorthEast(): LatLng;
  }
  export interface LeafletEvent {
    type: string;
    latlng?: LatLng;
    layer?: Layer;
    workingLayer?: Layer;
    shape?: string;
    originalEvent?: Event;
  }
  export type Handler = (event: LeafletEvent) => void;
  export interface Evented {
    on(type: string, handler: Handler): this;
    off(type: string, handler?: Handler): this;
  }
  export interface Layer extends Evented {
    addTo(map: LeafletMap | LayerGroup): this;
    remove(): this;
    getBounds(): Bounds;
    /** Polygons and lines: their corners (a polygon's as rings; a MultiPolygon's as polygons of rings). */
    getLatLngs(): unknown;
    setLatLngs(latlngs: unknown): this;
    setLatLng(latlng: LatLngPair): this;
    getLatLng(): LatLng;
    setStyle(style: PathStyle): this;
    toGeoJSON(): { type: 'Feature'; geometry: { type: string; coordinates: unknown } };
    getElement(): HTMLElement | SVGElement | undefined;
    bringToFront(): this;
    /** leaflet-geoman's editing of this path (present once the plugin is loaded). */
    pm: LayerEditing;
  }
  export interface LayerGroup extends Layer {
    addLayer(layer: Layer): this;
    clearLayers(): this;
  }
  export interface Tooltip extends Layer {
    setContent(content: string): this;
  }
  export interface TooltipOptions {
    permanent?: boolean;
    direction?: 'center' | 'top' | 'right' | 'bottom' | 'left' | 'auto';
    className?: string;
    interactive?: boolean;
    pane?: string;
  }
  export interface LeafletMap extends Evented {
    fitBounds(
      bounds: Bounds,
      options?: {
        padding?: [number, number];
        paddingTopLeft?: [number, number];
        paddingBottomRight?: [number, number];
        maxZoom?: number;
      },
    ): this;
    setView(center: LatLngPair, zoom: number): this;
    zoomIn(): this;
    zoomOut(): this;
    remove(): this;
    invalidateSize(): this;
    distance(a: LatLng, b: LatLng): number;
    getContainer(): HTMLElement;
    createPane(name: string): HTMLElement;
    panInside(latlng: LatLng, options?: { padding?: [number, number] }): this;
    attributionControl?: { setPrefix(prefix: string | false): void };
    /** leaflet-geoman's drawing on this map (present once the plugin is loaded). */
    pm: MapDrawing;
  }
  export interface PathStyle {
    color?: string;
    weight?: number;
    opacity?: number;
    fillColor?: string;
    fillOpacity?: number;
    dashArray?: string;
    className?: string;
    interactive?: boolean;
  }
  export interface DivIconOptions {
    className?: string;
    html?: string;
    iconSize?: LatLngPair;
    iconAnchor?: LatLngPair;
  }
  export interface Icon {
    readonly options: DivIconOptions;
  }
  export interface MarkerOptions {
    icon?: Icon;
    title?: string;
    alt?: string;
    keyboard?: boolean;
    zIndexOffset?: number;
  }
  export interface GeoJSONOptions {
    style?: PathStyle | ((feature: unknown) => PathStyle);
    interactive?: boolean;
  }
  export interface TileLayerOptions {
    attribution?: string;
    maxZoom?: number;
    crossOrigin?: boolean;
  }

  /** leaflet-geoman: the options of a drawing or an edit. */
  export interface DrawOptions {
    snappable?: boolean;
    allowSelfIntersection?: boolean;
    finishOn?: string | null;
    continueDrawing?: boolean;
    templineStyle?: PathStyle;
    hintlineStyle?: PathStyle;
    pathOptions?: PathStyle;
  }
  export interface MapDrawing {
    enableDraw(shape: 'Polygon' | 'Line', options?: DrawOptions): void;
    disableDraw(): void;
    /** `override`'s words merged over `fallback`'s, kept as `lang`'s. */
    setLang(lang: string, override?: { tooltips?: Record<string, string> }, fallback?: string): void;
    /** The shapes' draw handlers; `_finishShape` and `_removeLastVertex` are what geoman's own toolbar calls. */
    Draw: Record<'Polygon' | 'Line', { _finishShape(): void; _removeLastVertex(): void }>;
  }
  export interface LayerEditing {
    enable(options?: DrawOptions): void;
    disable(): void;
  }

  const L: {
    map(
      element: HTMLElement,
      options?: {
        attributionControl?: boolean;
        zoomControl?: boolean;
        scrollWheelZoom?: boolean;
        zoomSnap?: number;
        tapTolerance?: number;
      },
    ): LeafletMap;
    control: {
      zoom(options?: { zoomInTitle?: string; zoomOutTitle?: string }): { addTo(map: LeafletMap): unknown };
    };
    geoJSON(geometry: unknown, options?: GeoJSONOptions): Layer;
    tileLayer(template: string, options?: TileLayerOptions): Layer;
    layerGroup(): LayerGroup;
    marker(latlng: LatLngPair, options?: MarkerOptions): Layer;
    divIcon(options: DivIconOptions): Icon;
    polyline(latlngs: LatLngPair[], style?: PathStyle): Layer;
    polygon(latlngs: unknown, style?: PathStyle): Layer;
    /** A tooltip standing alone (Leaflet 1.8+), placed with setLatLng. */
    tooltip(options?: TooltipOptions): Tooltip;
    latLng(lat: number, lng: number): LatLng;
    latLngBounds(corners: LatLngPair[]): Bounds;
    /** leaflet-geoman, once loaded: `reInitLayer` gives `pm` to a map or path made before it was loaded. */
    PM: { reInitLayer(target: Layer | LeafletMap): void };
  };
  export default L;
}
