/**
 * A paddock's outline drawn on Leaflet (served by Farmstead from node_modules), loaded by web/map.ts once the
 * small map comes into view. No tile layer: the console works offline on a farm's own network, and the
 * outline draws with or without tiles.
 */
import L from 'leaflet';

// Leaflet's own style sheet, served beside the library (vendor/leaflet.css at the same asset version).
const sheet = document.createElement('link');
sheet.rel = 'stylesheet';
sheet.href = new URL('../../../../vendor/leaflet.css', import.meta.url).href;
document.head.append(sheet);

/** Draws `geometry` (a GeoJSON Polygon, MultiPolygon or Feature of one) into `el`, fitted; returns its removal. */
export function drawOutline(el: HTMLElement, geometry: unknown): () => void {
  const map = L.map(el, {
    attributionControl: false,
    scrollWheelZoom: false,
    zoomSnap: 0.25,
  });
  const outline = L.geoJSON(geometry, {
    style: { color: '#2f6b3a', weight: 2, fillColor: '#2f6b3a', fillOpacity: 0.2 },
  }).addTo(map);
  map.fitBounds(outline.getBounds(), { padding: [12, 12] });
  return () => {
    map.remove();
  };
}
