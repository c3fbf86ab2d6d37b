/**
 * The farm drawn as an SVG, what the Map page shows before Leaflet (issue 45's page weight: Leaflet and its
 * style sheet are about 45 KB, this a few): the same features, colours, names, markers and tiles as
 * web/farm-map.ts, at the view Leaflet would fit (`farmView`, web/map-view.ts), so Leaflet takes over
 * without a jump. A tap on a paddock, a house, a tracker, an alert or a route calls the same `onPick` as on
 * Leaflet, so the panels are the page's either way; paddocks and routes are keyboard buttons too. What only
 * Leaflet does (a pan, a zoom, a pinch, the arrow keys) asks the page for it with `onWant`.
 */
import { t, words } from './i18n.ts';
import { html, useEffect, useLayoutEffect, useMemo, useRef, useState } from './lib.ts';
import {
  type AlertProperties,
  type DeviceProperties,
  farmView,
  type MapFeature,
  middleOf,
  PADDOCK_COLOURS,
  type Picked,
  panInside,
  pointOf,
  project,
  restState,
  ringsOf,
  TILE_MAX_ZOOM,
  type TileSetting,
  type TileState,
  type View,
} from './map-view.ts';
import { EN, ES } from './messages/map.ts';

const w = words(EN, ES);

/** Why the page should load Leaflet now: the person panned, zoomed (a button, the wheel, a key) or pinched. */
export type Wanted = 'pan' | 'zoom-in' | 'zoom-out' | 'keys';

/** A pointer moved further than this (px) while pressed is a pan, not a tap. */
const PAN_SLOP = 6;
const TILE_SIZE = 256;

/** A tile's address in the operator's template, as Leaflet fills it ({s}: a, b or c by the tile). */
function tileUrl(template: string, x: number, y: number, z: number): string {
  const values: Record<string, string | number> = {
    s: 'abc'[Math.abs(x + y) % 3] as string,
    x,
    y,
    z,
    '-y': 2 ** z - 1 - y,
    r: devicePixelRatio > 1 ? '@2x' : '',
  };
  return template.replace(/\{ *([\w-]+) *\}/g, (_, key: string) => String(values[key] ?? ''));
}

interface Props {
  features: readonly MapFeature[];
  location: [number, number] | null;
  /** Where the map looks: null until fitted (once, as Leaflet fits it), then the page's, handed to Leaflet. */
  view: View | null;
  onView(view: View): void;
  /** The paddock whose panel is open (drawn with a thicker edge, kept in view). */
  selected: string | null;
  /** Devices that reported since the features were read: where they are now, [lat, lon]. */
  moved: Readonly<Record<string, [number, number]>>;
  tiles: TileSetting;
  tileState: TileState;
  onTiles(state: TileState): void;
  onPick(picked: Picked | null): void;
  onWant(why: Wanted): void;
}

export function FarmSvg(props: Props) {
  const box = useRef<HTMLDivElement>(null);
  const [size, setSize] = useState<[number, number] | null>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    // The map shares the screen with the panel under or beside it: it follows its box (keeping its middle,
    // as Leaflet does).
    const observer = new ResizeObserver(() => {
      const [width, height] = [element.clientWidth, element.clientHeight];
      setSize(width > 0 && height > 0 ? [width, height] : null);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const { features, location, view, onView, selected } = props;
  // To the box as it is now (`size` lags a frame), before paint: pages/map.ts fits again under its tiles note.
  useLayoutEffect(() => {
    const element = box.current;
    if (!view && size && element)
      onView(farmView(features, location, element.clientWidth, element.clientHeight));
  }, [size, view]);
  // The highlighted paddock's middle stays on screen when a panel takes part of it (as on Leaflet).
  useEffect(() => {
    const paddock = features.find((f) => f.properties.kind === 'paddock' && f.properties.id === selected);
    const middle = paddock && middleOf(paddock);
    if (!view || !size || !middle) return;
    const moved = panInside(view, size[0], size[1], middle, 40);
    if (moved !== view) onView(moved);
  }, [size, selected, view]);
  const pressed = useRef<{ x: number; y: number } | null>(null);
  const panned = useRef(false);
  const pointers = useRef(new Set<number>());
  const want = (why: Wanted) => {
    pressed.current = null;
    props.onWant(why);
  };
  return html`<div class="map-canvas map-svg" ref=${box}
    onPointerDown=${(e: PointerEvent) => {
      pointers.current.add(e.pointerId);
      panned.current = false;
      if (pointers.current.size > 1) want('pan');
      else pressed.current = { x: e.clientX, y: e.clientY };
    }}
    onPointerMove=${(e: PointerEvent) => {
      const from = pressed.current;
      if (from && Math.hypot(e.clientX - from.x, e.clientY - from.y) > PAN_SLOP) {
        panned.current = true;
        want('pan');
      }
    }}
    onPointerUp=${(e: PointerEvent) => {
      pointers.current.delete(e.pointerId);
      pressed.current = null;
    }}
    onPointerCancel=${(e: PointerEvent) => pointers.current.delete(e.pointerId)}
    onWheel=${(e: WheelEvent) => want(e.deltaY < 0 ? 'zoom-in' : 'zoom-out')}
    onKeyDown=${(e: KeyboardEvent) => {
      if (e.key.startsWith('Arrow')) want('keys');
      else if (e.key === '+' || e.key === '=') want('zoom-in');
      else if (e.key === '-') want('zoom-out');
    }}
    onClickCapture=${(e: Event) => {
      // The end of a pan is no tap.
      if (panned.current) e.stopPropagation();
    }}
    onClick=${() => props.onPick(null)}>
    ${size && view && html`<${Drawing} ...${props} view=${view} width=${size[0]} height=${size[1]} />`}
    <div class="map-zoom">
      <button type="button" aria-label=${t('map.zoom_in')} title=${t('map.zoom_in')}
        onClick=${(e: Event) => {
          e.stopPropagation();
          want('zoom-in');
        }}><span aria-hidden="true">+</span></button>
      <button type="button" aria-label=${t('map.zoom_out')} title=${t('map.zoom_out')}
        onClick=${(e: Event) => {
          e.stopPropagation();
          want('zoom-out');
        }}><span aria-hidden="true">−</span></button>
    </div>
  </div>`;
}

function Drawing(props: Props & { view: View; width: number; height: number }) {
  const { features, view, width, height, selected, moved, onPick } = props;
  // As Leaflet places a layer: each point projected and rounded, less the rounded top left corner.
  const [cx, cy] = project(view.center[0], view.center[1], view.zoom);
  const left = Math.round(cx - width / 2);
  const top = Math.round(cy - height / 2);
  const at = (lat: number, lon: number): [number, number] => {
    const [x, y] = project(lat, lon, view.zoom);
    return [Math.round(x) - left, Math.round(y) - top];
  };
  const pick = (picked: Picked) => (e: Event) => {
    e.stopPropagation();
    onPick(picked);
  };
  const pressKey = (picked: Picked) => (e: KeyboardEvent) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    onPick(picked);
  };
  const paddocks = [];
  const labels = [];
  const routes = [];
  const markers: { p: DeviceProperties | AlertProperties; x: number; y: number }[] = [];
  for (const f of features) {
    const p = f.properties;
    if (p.kind === 'paddock') {
      const rings = ringsOf(f).filter((r) => r.length >= 3);
      if (rings.length === 0) continue;
      const d = rings
        .map((ring) => `M${ring.map(([lon, lat]) => at(lat as number, lon as number).join(' ')).join('L')}Z`)
        .join('');
      const colour = PADDOCK_COLOURS[restState(p)];
      const picked: Picked = { kind: 'paddock', id: p.id };
      paddocks.push(html`<path key=${p.id} class=${`map-paddock paddock-${p.id}`} d=${d} fill=${colour}
        fill-opacity="0.25" fill-rule="evenodd" stroke=${colour} stroke-width=${p.id === selected ? 5 : 2}
        stroke-linejoin="round" role="button" tabindex="0" aria-label=${p.name}
        onClick=${pick(picked)} onKeyDown=${pressKey(picked)} />`);
      // The name on the paddock's top edge, where the houses and alerts standing in it do not cover it.
      const corners = rings.flat();
      const lons = corners.map((c) => c[0] as number);
      const [x, y] = at(
        Math.max(...corners.map((c) => c[1] as number)),
        (Math.min(...lons) + Math.max(...lons)) / 2,
      );
      labels.push(
        html`<text key=${p.id} class="map-label" x=${x} y=${y - 10} text-anchor="middle">${p.name}</text>`,
      );
    } else if (p.kind === 'route' && f.geometry?.type === 'LineString') {
      const d = `M${(f.geometry.coordinates as number[][]).map(([lon, lat]) => at(lat as number, lon as number).join(' ')).join('L')}`;
      const picked: Picked = { kind: 'route', id: p.command_id };
      const to = features.find((x) => x.properties.kind === 'paddock' && x.properties.id === p.paddock_id);
      const name = to?.properties.kind === 'paddock' ? to.properties.name : w('a_paddock');
      routes.push(html`<g key=${p.command_id}>
        <path class="map-route" d=${d} fill="none" stroke="#1d2320" stroke-width="3" stroke-dasharray="6 6" />
        <path class="map-route-hit" d=${d} fill="none" stroke="transparent" stroke-width="24" role="button"
          tabindex="0" aria-label=${w('planned_to', { paddock: name })} onClick=${pick(picked)}
          onKeyDown=${pressKey(picked)} /></g>`);
    } else if (p.kind === 'device' || p.kind === 'alert') {
      const place = (p.kind === 'device' && moved[p.id]) || pointOf(f);
      if (!place) continue;
      const [x, y] = at(place[0], place[1]);
      markers.push({ p, x, y });
    }
  }
  // Trackers under houses under alerts, as on Leaflet.
  const order = (p: DeviceProperties | AlertProperties) =>
    p.kind === 'alert' ? 2 : p.type === 'house' ? 1 : 0;
  markers.sort((a, b) => order(a.p) - order(b.p));
  return html`
    <${Tiles} ...${props} view=${view} left=${left} top=${top} />
    <svg class="map-drawing" width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`}>
      ${paddocks}${routes}<g aria-hidden="true">${labels}</g>
    </svg>
    ${markers.map(
      ({ p, x, y }) =>
        html`<${Marker} key=${`${p.kind}${p.id}`} p=${p} x=${x} y=${y} width=${width} onPick=${pick({ kind: p.kind, id: p.id })} />`,
    )}`;
}

/** A house, a tracker or an alert: a button of a thumb's size around its pin, as Leaflet's marker looks. */
function Marker({
  p,
  x,
  y,
  width,
  onPick,
}: {
  p: DeviceProperties | AlertProperties;
  x: number;
  y: number;
  /** The drawing's: a house's name that would run past its right edge is written left of the pin. */
  width: number;
  onPick(e: Event): void;
}) {
  if (p.kind === 'alert') {
    const name = t(p.severity === 'urgent' ? 'map.urgent_alert' : 'map.alert', { title: p.title });
    // Up and to the right of its place, so the house or tracker it is about stays visible.
    return html`<button type="button" class="map-marker" style=${`left:${x + 18}px;top:${y - 20}px`}
      title=${name} aria-label=${name} onClick=${onPick}><span class=${`map-alert ${p.severity}`} aria-hidden="true">!</span></button>`;
  }
  const house = p.type === 'house';
  // A house's name is written beside its pin (the button's name); a tracker's is its title.
  return html`<button type="button" class="map-marker" style=${`left:${x}px;top:${y}px`}
    title=${p.name} aria-label=${house ? undefined : p.name} onClick=${onPick}>${
      house
        ? html`<span class=${`map-house${x + 44 + p.name.length * 8 > width ? ' name-left' : ''}`}><span class="map-pin" aria-hidden="true">${t('map.house_pin')}</span><span class="map-name">${p.name}</span></span>`
        : html`<span class="map-tracker" aria-hidden="true"></span>`
    }</button>`;
}

/**
 * The operator's tiles under the drawing, as Leaflet lays them (the zoom rounded to a tile level, each tile
 * scaled to the view's zoom). None load: they are taken away and the page says so, as on Leaflet.
 */
function Tiles({
  tiles,
  tileState,
  onTiles,
  view,
  width,
  height,
  left,
  top,
}: Props & { view: View; width: number; height: number; left: number; top: number }) {
  const counts = useRef({ loaded: 0, failed: 0 });
  const url = tiles.url;
  const level = Math.max(0, Math.min(TILE_MAX_ZOOM, Math.round(view.zoom)));
  const side = TILE_SIZE * 2 ** (view.zoom - level);
  const list = useMemo(() => {
    if (!url) return [];
    const out: { src: string; x: number; y: number }[] = [];
    const count = 2 ** level;
    for (let ty = Math.floor(top / side); ty * side < top + height; ty++) {
      if (ty < 0 || ty >= count) continue;
      for (let tx = Math.floor(left / side); tx * side < left + width; tx++) {
        const wrapped = ((tx % count) + count) % count;
        out.push({ src: tileUrl(url, wrapped, ty, level), x: tx * side - left, y: ty * side - top });
      }
    }
    return out;
  }, [url, level, side, left, top, width, height]);
  if (!url || tileState === 'unreachable') return null;
  const settled = () => {
    const { loaded, failed } = counts.current;
    if (loaded > 0) onTiles('shown');
    else if (failed >= list.length) onTiles('unreachable');
  };
  return html`<div class="map-tiles" aria-hidden="true">
    ${list.map(
      (tile) => html`<img key=${tile.src} class="map-tile" src=${tile.src} alt="" width=${Math.ceil(side)}
        height=${Math.ceil(side)} style=${`left:${Math.round(tile.x)}px;top:${Math.round(tile.y)}px`}
        onLoad=${() => {
          counts.current.loaded++;
          settled();
        }}
        onError=${() => {
          counts.current.failed++;
          settled();
        }} />`,
    )}
    </div>
    ${tiles.attribution && html`<div class="map-attribution">${tiles.attribution}</div>`}`;
}
