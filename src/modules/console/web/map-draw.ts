/**
 * The Map page's drawing panels (web/pages/map.ts): a new paddock drawn corner by corner, a paddock's outline
 * edited in place, a paddock split along a drawn line, each with its length and area as it is drawn. Loaded
 * with leaflet-geoman (web/draw.ts) when a person starts drawing, so neither weighs on the page's first load.
 */

import type { SplitRefusal } from '../../../domain/paddock-split.ts';
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
import type { FarmMap } from './farm-map.ts';
import { Field, number, text, useForm } from './form.ts';
import { words } from './i18n.ts';
import { html, useEffect, useRef, useState } from './lib.ts';
import { type MapFeature, type PaddockProperties, Sheet } from './map-view.ts';
import { EN, ES } from './messages/map-draw.ts';
import { useReader } from './reader-hook.ts';
import type { Farm } from './store.ts';
import { ActionButton, ErrorText } from './ui.ts';

const w = words(EN, ES);

/** The length and area of what is being drawn, as it is drawn. */
function Measured({ measure }: { measure: Measure | null }) {
  useReader();
  if (!measure) return html`<p class="measure" role="status"> </p>`;
  return html`<p class="measure" role="status">
    <span>${w('length')} <strong>${lengthText(measure.meters)}</strong></span>
    <span>${w('area')} <strong>${measure.squareMeters > 0 ? areaText(measure.squareMeters) : '—'}</strong></span></p>`;
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
  useReader();
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
    return html`<${Sheet} title=${w('draw_title')}>
      <p>${w('draw_help')}</p>
      <${Measured} measure=${measure} />
      <div class="actions">
        <button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>${w('finish')}</button>
        <button type="button" class="button secondary" onClick=${() => drawing.current?.undo()}>${w('undo_corner')}</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>${w('cancel')}</button>
      </div><//>`;
  }
  const p = { error: form.error, idPrefix: 'new-paddock' };
  return html`<${Sheet} title=${w('new_title')}>
    <${Measured} measure=${measure} />
    <form onSubmit=${form.onSubmit} aria-label=${w('new_title')}>
      <${Field} name="name" label=${w('name')} required ...${p} />
      <${Field} name="rest_days_target" label=${w('rest_target_days')} type="number" min="0" step="any" ...${p} />
      <${ErrorText} error=${form.error && !['name', 'rest_days_target'].includes(form.error.param ?? '') ? form.error : null} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>${w('save_paddock')}</button>
        <button type="button" class="button link" onClick=${() => onDone(null)}>${w('cancel')}</button>
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
  useReader();
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
    return w('outline_saved');
  };
  return html`<${Sheet} title=${w('edit_title', { paddock: paddock.name })}>
    <p>${w('edit_help')}</p>
    <${Measured} measure=${measure} />
    <div class="actions">
      <${ActionButton} label=${w('save_outline')} kind="primary" action=${save} />
      <button type="button" class="button link" onClick=${onDone}>${w('cancel')}</button>
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
  useReader();
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [parts, setParts] = useState<[Outline, Outline] | null>(null);
  const [refused, setRefused] = useState<SplitRefusal | null>(null);
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
    return html`<${Sheet} title=${w('split_title', { paddock: paddock.name })}>
      <p>${w('split_help')}</p>
      <${Measured} measure=${measure} />
      ${refused && html`<p class="error" role="alert">${w(refused === 'Only a paddock drawn as one outline without holes can be split.' ? 'refused_holes' : 'refused_crossing')}</p>`}
      <div class="actions">
        ${refused ? html`<button type="button" class="button primary" onClick=${again}>${w('draw_again')}</button>` : html`<button type="button" class="button primary" onClick=${() => drawing.current?.finish()}>${w('finish')}</button>`}
        <button type="button" class="button link" onClick=${onDone}>${w('cancel')}</button>
      </div><//>`;
  }
  return html`<${Sheet} title=${w('split_title', { paddock: paddock.name })}>
    <p>${w('split_parts', { paddock: paddock.name })}</p>
    <form onSubmit=${form.onSubmit} aria-label=${w('split_form')}>
      <${Field} name="name" label=${w('new_name')} value=${w('new_name_value', { paddock: paddock.name })} required error=${form.error} idPrefix="split" />
      <${ErrorText} error=${form.error?.param === 'name' ? null : form.error} />
      <div class="actions">
        <button type="submit" class="button primary" disabled=${form.busy}>${w('split')}</button>
        <button type="button" class="button secondary" onClick=${again}>${w('draw_again')}</button>
        <button type="button" class="button link" onClick=${onDone}>${w('cancel')}</button>
      </div>
    </form><//>`;
}
