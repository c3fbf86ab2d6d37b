/**
 * The Map page's drawing panels (web/pages/map.ts): a new paddock drawn corner by corner, a paddock's outline
 * edited in place, a paddock split along a drawn line, each with its length and area as it is drawn. Loaded
 * with leaflet-geoman (web/draw.ts) when a person starts drawing, so neither weighs on the page's first load.
 */
import { api } from './api.ts';
import {
  acresOf,
  areaText,
  type Drawing,
  draw,
  edit,
  lengthText,
  type Measure,
  type Outline,
  split,
} from './draw.ts';
import { type FarmMap, type MapFeature, type PaddockProperties, Sheet } from './farm-map.ts';
import { Field, number, text, useForm } from './form.ts';
import { html, useEffect, useRef, useState } from './lib.ts';
import type { Farm } from './store.ts';
import { ActionButton, ErrorText } from './ui.ts';

/** The length and area of what is being drawn, as it is drawn. */
function Measured({ measure }: { measure: Measure | null }) {
  if (!measure) return html`<p class="measure" role="status"> </p>`;
  return html`<p class="measure" role="status">
    <span>Length <strong>${lengthText(measure.meters)}</strong></span>
    <span>Area <strong>${measure.squareMeters > 0 ? areaText(measure.squareMeters) : '—'}</strong></span></p>`;
}

const roundedAcres = (outline: Outline) => Math.round(acresOf(outline) * 100) / 100;

/** Drawing a new paddock: corners tapped on the map, then its name; saved with its outline. */
export function DrawSheet({
  farm,
  map,
  onDone,
}: {
  farm: Farm;
  map: FarmMap;
  onDone(id: string | null): void;
}) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [outline, setOutline] = useState<Outline | null>(null);
  const drawing = useRef<Drawing | null>(null);
  const shape = useRef<{ remove(): void } | null>(null);
  useEffect(() => {
    let live = true;
    map.busy = true;
    const d = draw(map.map, 'Polygon', setMeasure);
    drawing.current = d;
    d.done.then((layer) => {
      if (!layer || !live) return;
      shape.current = layer;
      setOutline(layer.toGeoJSON().geometry as Outline);
    });
    return () => {
      live = false;
      drawing.current?.cancel();
      shape.current?.remove();
      map.busy = false;
    };
  }, []);
  const form = useForm(async (data) => {
    if (!outline) return null;
    const created = await api('POST', '/v1/farms/{farm}/paddocks', {
      path: { farm: farm.id },
      body: {
        name: text(data, 'name') ?? '',
        rest_days_target: number(data, 'rest_days_target'),
        acres: roundedAcres(outline),
        geometry: outline,
      },
    });
    onDone(created.id);
    return null;
  });
  if (!outline) {
    return html`<${Sheet} title="Draw a paddock">
      <p>Tap each corner of the paddock on the map; tap the first corner again, or Finish, to close it.</p>
      <${Measured} measure=${measure} />
      <div class="actions">
        <button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>Finish</button>
        <button type="button" class="button secondary" onClick=${() => drawing.current?.undo()}>Undo corner</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>Cancel</button>
      </div><//>`;
  }
  const p = { error: form.error, idPrefix: 'new-paddock' };
  return html`<${Sheet} title="New paddock">
    <${Measured} measure=${measure} />
    <form onSubmit=${form.onSubmit} aria-label="New paddock">
      <${Field} name="name" label="Name" required ...${p} />
      <${Field} name="rest_days_target" label="Rest target (days)" type="number" min="0" step="any" ...${p} />
      <${ErrorText} error=${form.error && !['name', 'rest_days_target'].includes(form.error.param ?? '') ? form.error : null} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>Save paddock</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>Cancel</button>
      </div>
    </form><//>`;
}

/** Moving a paddock's corners in place; saved as its new outline (and the acres drawn). */
export function EditSheet({
  paddock,
  map,
  onDone,
}: {
  paddock: PaddockProperties;
  map: FarmMap;
  onDone(): void;
}) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const editing = useRef<ReturnType<typeof edit> | null>(null);
  useEffect(() => {
    map.busy = true;
    const layer = map.paddockLayer(paddock.id);
    if (layer) editing.current = edit(map.map, layer, setMeasure);
    return () => {
      editing.current?.cancel();
      map.busy = false;
    };
  }, [paddock.id]);
  const save = async () => {
    const e = editing.current;
    if (!e) return null;
    const geometry = e.geometry();
    await api('PATCH', '/v1/paddocks/{id}', {
      path: { id: paddock.id },
      body: { geometry, acres: roundedAcres(geometry) },
    });
    e.save();
    editing.current = null;
    onDone();
    return 'Outline saved';
  };
  return html`<${Sheet} title=${`Edit ${paddock.name}`}>
    <p>Drag a corner to move it; drag the point in the middle of an edge to add a corner.</p>
    <${Measured} measure=${measure} />
    <div class="actions">
      <${ActionButton} label="Save outline" kind="primary" action=${save} />
      <button type="button" class="button link" onClick=${onDone}>Cancel</button>
    </div><//>`;
}

/** Splitting a paddock: a line drawn across it, the two parts previewed, the new part named. */
export function SplitSheet({
  farm,
  paddock,
  geometry,
  map,
  onDone,
}: {
  farm: Farm;
  paddock: PaddockProperties;
  geometry: MapFeature['geometry'];
  map: FarmMap;
  onDone(): void;
}) {
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [parts, setParts] = useState<[Outline, Outline] | null>(null);
  const [refused, setRefused] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const drawing = useRef<Drawing | null>(null);
  useEffect(() => {
    let live = true;
    let line: { remove(): void } | null = null;
    map.busy = true;
    const d = draw(map.map, 'Line', setMeasure);
    drawing.current = d;
    d.done.then((layer) => {
      if (!layer || !live) return;
      line = layer;
      const result = split(geometry as Outline, layer);
      if ('refused' in result) {
        setRefused(result.refused);
        return;
      }
      map.showPreview(result.parts);
      setParts(result.parts);
    });
    return () => {
      live = false;
      drawing.current?.cancel();
      map.showPreview([]);
      line?.remove();
      map.busy = false;
    };
  }, [paddock.id, attempt]);
  const form = useForm(async (data) => {
    if (!parts) return null;
    const [kept, added] = parts;
    // The new paddock first: if it is refused, the old one is still whole.
    await api('POST', '/v1/farms/{farm}/paddocks', {
      path: { farm: farm.id },
      body: {
        name: text(data, 'name') ?? '',
        rest_days_target: paddock.rest_days_target,
        last_grazed_at: paddock.last_grazed_at,
        acres: roundedAcres(added),
        geometry: added,
      },
    });
    await api('PATCH', '/v1/paddocks/{id}', {
      path: { id: paddock.id },
      body: { geometry: kept, acres: roundedAcres(kept) },
    });
    onDone();
    return null;
  });
  const again = () => {
    setRefused(null);
    setParts(null);
    setAttempt((n) => n + 1);
  };
  if (!parts) {
    return html`<${Sheet} title=${`Split ${paddock.name}`}>
      <p>Draw the new fence line: tap outside the paddock, across it, and outside again; then Finish.</p>
      <${Measured} measure=${measure} />
      ${refused && html`<p class="error" role="alert">${refused}</p>`}
      <div class="actions">
        ${refused ? html`<button type="button" class="button primary" onClick=${again}>Draw again</button>` : html`<button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>Finish</button>`}
        <button type="button" class="button link" onClick=${onDone}>Cancel</button>
      </div><//>`;
  }
  return html`<${Sheet} title=${`Split ${paddock.name}`}>
    <p>The blue part keeps the name ${paddock.name}; the orange part becomes a new paddock.</p>
    <form onSubmit=${form.onSubmit} aria-label="Split the paddock">
      <${Field} name="name" label="Name of the new paddock" value=${`${paddock.name} 2`} required error=${form.error} idPrefix="split" />
      <${ErrorText} error=${form.error?.param === 'name' ? null : form.error} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>Split</button>
        <button type="button" class="button secondary" onClick=${again}>Draw again</button>
        <button type="button" class="button link" onClick=${onDone}>Cancel</button>
      </div>
    </form><//>`;
}
