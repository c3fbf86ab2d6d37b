/**
 * A paddock's outline on a small map (Leaflet, served by Farmstead from node_modules). No tile layer: the
 * console works offline on a farm's own network, and the outline draws with or without tiles. Only the
 * paddocks page imports this module, so Leaflet is not part of any other page's load.
 */
import L from 'leaflet';
import { t } from './i18n.ts';
import { html, useEffect, useRef } from './lib.ts';

// Leaflet's own style sheet, served beside the library (vendor/leaflet.css at the same asset version).
const sheet = document.createElement('link');
sheet.rel = 'stylesheet';
sheet.href = new URL('../../../../vendor/leaflet.css', import.meta.url).href;
document.head.append(sheet);

/** The outline of `geometry` (a GeoJSON Polygon, MultiPolygon or Feature of one), fitted to the map. */
export function PaddockMap({ geometry, label }: { geometry: unknown; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(geometry);
  useEffect(() => {
    if (!ref.current) return;
    const map = L.map(ref.current, {
      attributionControl: false,
      scrollWheelZoom: false,
      zoomSnap: 0.25,
    });
    const outline = L.geoJSON(JSON.parse(key), {
      style: { color: '#2f6b3a', weight: 2, fillColor: '#2f6b3a', fillOpacity: 0.2 },
    }).addTo(map);
    map.fitBounds(outline.getBounds(), { padding: [12, 12] });
    return () => {
      map.remove();
    };
  }, [key]);
  return html`<div class="paddock-map" ref=${ref} role="region" aria-label=${t('map.map_of', { name: label })}></div>`;
}
