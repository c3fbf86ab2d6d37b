/**
 * A paddock's outline as an SVG drawing, for the paddocks page's cards: the ring's corners projected onto a
 * plane (longitude scaled by the cosine of the middle latitude, as a map at that latitude shows it), fitted
 * into the box with a margin, holes kept (even-odd fill). No map library and no tiles: a card only needs the
 * shape, the Map page has the farm on Leaflet to pan and zoom. Loaded by web/map.ts once the box comes into
 * view.
 */

type Ring = number[][];

/** The outline's rings, from a GeoJSON Polygon, MultiPolygon or a Feature of one; none for anything else. */
function ringsOf(geometry: unknown): Ring[] {
  const g = geometry as { type?: string; geometry?: unknown; coordinates?: unknown };
  if (g?.type === 'Feature') return ringsOf(g.geometry);
  if (g?.type === 'Polygon') return g.coordinates as Ring[];
  if (g?.type === 'MultiPolygon') return (g.coordinates as Ring[][]).flat();
  return [];
}

const SVG = 'http://www.w3.org/2000/svg';
const MARGIN = 12;

/** Draws `geometry` into `el`, fitted; returns its removal. */
export function drawOutline(el: HTMLElement, geometry: unknown): () => void {
  const rings = ringsOf(geometry).filter((r) => r.length >= 3);
  const points = rings.flat();
  const lats = points.map((p) => p[1] as number);
  const lons = points.map((p) => p[0] as number);
  const scaleX = Math.cos((((Math.min(...lats) + Math.max(...lats)) / 2) * Math.PI) / 180);
  const x = (lon: number) => lon * scaleX;
  const [minX, maxX] = [Math.min(...lons.map(x)), Math.max(...lons.map(x))];
  const [minY, maxY] = [Math.min(...lats), Math.max(...lats)];
  const width = el.clientWidth || 300;
  const height = el.clientHeight || 160;
  const scale = Math.min(
    (width - 2 * MARGIN) / (maxX - minX || 1e-9),
    (height - 2 * MARGIN) / (maxY - minY || 1e-9),
  );
  // Centred in the box; north up.
  const left = (width - (maxX - minX) * scale) / 2;
  const top = (height - (maxY - minY) * scale) / 2;
  const d = rings
    .map(
      (ring) =>
        `M${ring
          .map(([lon, lat]) => {
            const px = left + (x(lon as number) - minX) * scale;
            const py = top + (maxY - (lat as number)) * scale;
            return `${px.toFixed(1)},${py.toFixed(1)}`;
          })
          .join('L')}Z`,
    )
    .join('');
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', '100%');
  svg.setAttribute('height', '100%');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('class', 'paddock-outline');
  path.setAttribute('d', d);
  path.setAttribute('fill-rule', 'evenodd');
  svg.append(path);
  if (rings.length > 0) el.append(svg);
  return () => svg.remove();
}
