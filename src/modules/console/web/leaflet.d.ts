/**
 * The few parts of Leaflet 1.9 that web/map.ts uses (Leaflet ships no type declarations of its own, and
 * @types/leaflet is not a dependency).
 */
declare module 'leaflet' {
  interface Bounds {
    isValid(): boolean;
  }
  interface Layer {
    addTo(map: LeafletMap): this;
    getBounds(): Bounds;
  }
  interface LeafletMap {
    fitBounds(bounds: Bounds, options?: { padding?: [number, number] }): this;
    remove(): this;
  }
  interface PathStyle {
    color?: string;
    weight?: number;
    fillColor?: string;
    fillOpacity?: number;
  }
  const L: {
    map(
      element: HTMLElement,
      options?: { attributionControl?: boolean; scrollWheelZoom?: boolean; zoomSnap?: number },
    ): LeafletMap;
    geoJSON(geometry: unknown, options?: { style?: PathStyle }): Layer;
  };
  export default L;
}
