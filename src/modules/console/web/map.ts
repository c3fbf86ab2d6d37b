/**
 * A paddock's outline on a small map. Only the paddocks page imports this module; the drawing
 * (web/paddock-outline.ts, an SVG of the outline) loads once the map's place comes into view, as a lazy image
 * does, and the box (`.paddock-map`, a fixed height) holds its place until then.
 */
import { t } from './i18n.ts';
import { html, useEffect, useRef } from './lib.ts';
import { lazy, useSeen } from './on-demand.ts';
import { problemOf } from './ui.ts';

const useOutline = lazy(() => import('./paddock-outline.ts'));

/** The outline of `geometry` (a GeoJSON Polygon, MultiPolygon or Feature of one), fitted to the map. */
export function PaddockMap({ geometry, label }: { geometry: unknown; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const key = JSON.stringify(geometry);
  const outline = useOutline(useSeen(ref));
  useEffect(() => {
    if (!ref.current || !outline.module) return;
    return outline.module.drawOutline(ref.current, JSON.parse(key));
  }, [key, outline.module]);
  return html`<div class="paddock-map" ref=${ref} role="region" aria-label=${t('map.map_of', { name: label })}>
    ${outline.error && html`<p class="small muted" role="alert">${problemOf(outline.error).message}</p>`}
  </div>`;
}
