/**
 * Paddocks: acres, rest target, days rested (the API's rest_days, highlighted past the target), who is in
 * each now (occupied_by) and, on demand, its grazing history; after these facts, the outline drawn from its
 * GeoJSON geometry on a small Leaflet map (web/map.ts, Leaflet loaded when the map comes into view; no tiles,
 * so it draws offline).
 */
import { api, type Schema } from '../api.ts';
import { areaFieldValue, areaFromField, areaLabel } from '../area-field.ts';
import { dateTime, errorFor, Field, fieldError, localInput, number, Submit, text, useForm } from '../form.ts';
import { areaText, drawnAcresApart, HistoryToggle, Occupants, occupiedNow, pastTarget } from '../grazing.ts';
import { words } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { PaddockMap } from '../map.ts';
import { EN, ES } from '../messages/paddocks.ts';
import { useReader } from '../reader-hook.ts';
import { loadPaddocks } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Paddock = Schema<'Paddock'>;
type Geometry = { type?: unknown; coordinates?: unknown; geometry?: Geometry } | null | undefined;

const w = words(EN, ES);
const NAMES = ['name', 'acres', 'rest_days_target', 'last_grazed_at', 'geometry'];

/** The rings of a GeoJSON Polygon, MultiPolygon or Feature (with such a geometry); [] for anything else. */
export function ringsOf(geometry: unknown): unknown[] {
  const given = geometry as Geometry;
  const g = given?.type === 'Feature' ? given.geometry : given;
  if (g?.type === 'Polygon' && Array.isArray(g.coordinates)) return g.coordinates;
  if (g?.type === 'MultiPolygon' && Array.isArray(g.coordinates)) return g.coordinates.flat();
  return [];
}

/** The paddock's outline on a small map, when its geometry is a GeoJSON outline with at least one ring. */
function Outline({ geometry, label }: { geometry: unknown; label: string }) {
  const rings = ringsOf(geometry).filter(
    (r) => Array.isArray(r) && r.length >= 3 && r.every((p: unknown) => Array.isArray(p) && p.length >= 2),
  );
  if (rings.length === 0) return null;
  return html`<${PaddockMap} geometry=${geometry} label=${label} />`;
}

function PaddockForm({
  farm,
  paddock,
  onSaved,
  onClose,
}: {
  farm: Farm;
  paddock?: Paddock;
  onSaved(): void;
  onClose?: () => void;
}) {
  const form = useForm(async (data) => {
    const raw = text(data, 'geometry');
    let geometry: Record<string, unknown> | null = null;
    if (raw) {
      try {
        geometry = JSON.parse(raw);
      } catch {
        throw fieldError(w('bad_json'), 'geometry');
      }
    }
    const body = {
      name: text(data, 'name') ?? '',
      acres: areaFromField(data, 'acres'),
      rest_days_target: number(data, 'rest_days_target'),
      last_grazed_at: dateTime(data, 'last_grazed_at'),
      geometry,
    };
    if (paddock) await api('PATCH', '/v1/paddocks/{id}', { path: { id: paddock.id }, body });
    else await api('POST', '/v1/farms/{farm}/paddocks', { path: { farm: farm.id }, body });
    onSaved();
    onClose?.();
    return paddock ? w('saved') : w('added');
  });
  const d: Partial<Paddock> = paddock ?? {};
  const p = { error: form.error, idPrefix: paddock ? `p-${paddock.id}` : 'p-new' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label=${paddock ? w('edit_named', { name: paddock.name }) : w('add')}>
    <h2>${paddock ? w('edit_named', { name: paddock.name }) : w('add')}</h2>
    <div class="form-grid">
      <${Field} name="name" label=${w('name')} value=${d.name} required ...${p} />
      <${Field} name="acres" label=${areaLabel()} type="number" step="any" min="0" value=${areaFieldValue(d.acres)} ...${p} />
      <${Field} name="rest_days_target" label=${w('rest_target_days')} type="number" step="any" min="0" value=${d.rest_days_target} ...${p} />
      <${Field} name="last_grazed_at" label=${w('last_grazed')} type="datetime-local" value=${localInput(d.last_grazed_at)} ...${p} />
    </div>
    <details class="technical" open=${Boolean(errorFor(p.error, 'geometry'))}>
      <summary>${w('outline_technical')}</summary>
      <p class="small muted">${w('outline_on_map')}</p>
      <${Field} name="geometry" label=${w('outline')} type="textarea" value=${d.geometry ? JSON.stringify(d.geometry) : ''} ...${p} />
    </details>
    <${Submit} form=${form} label=${paddock ? w('save') : w('submit')} names=${NAMES} />
    ${onClose && html`<button type="button" class="button link" onClick=${onClose}>${w('close')}</button>`}
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const paddocks = useLoad(() => loadPaddocks(farm.id), [farm.id]);
  const [editing, setEditing] = useState<Paddock | null>(null);
  const [adding, setAdding] = useState(false);
  if (!paddocks.data) return html`<${Loading} error=${paddocks.error} retry=${paddocks.reload} />`;
  const write = can('paddocks', 'write');
  return html`<section>
    <h1>${w('title')}</h1>
    ${write && !adding && html`<button type="button" class="button primary" onClick=${() => setAdding(true)}>${w('add')}</button>`}
    ${adding && html`<${PaddockForm} farm=${farm} onSaved=${paddocks.reload} onClose=${() => setAdding(false)} />`}
    <ul class="cards paddock-grid">${paddocks.data.map((p) => {
      const rested = p.rest_days;
      const ready = pastTarget(p);
      const grazed = occupiedNow(p);
      const drawn = drawnAcresApart(p);
      return html`<li class=${`card paddock${ready ? ' ready' : ''}`} key=${p.id} id=${p.id}>
        <div class="card-head"><h2 class="card-title">${p.name}</h2>
          ${ready && html`<span class="badge watch">${w('past_target')}</span>`}</div>
        <dl class="facts">
          <div><dt>${w('area')}</dt><dd>${areaText(p.acres)}</dd></div>
          ${drawn !== null && html`<div class="acres-apart"><dt>${w('drawn')}</dt><dd>${w('drawn_apart', { area: areaText(drawn) })}</dd></div>`}
          <div><dt>${w('rest_target')}</dt><dd>${p.rest_days_target === null ? '—' : w('days', { count: p.rest_days_target })}</dd></div>
          <div><dt>${w('rested')}</dt><dd>${grazed ? w('being_grazed') : rested === null ? w('never_grazed') : w('days', { count: rested })}</dd></div>
        </dl>
        <${Occupants} paddock=${p} />
        <${Outline} geometry=${p.geometry} label=${p.name} />
        <${HistoryToggle} paddock=${p} timezone=${farm.timezone} />
        ${write && html`<button type="button" class="button link" onClick=${() => setEditing(p)}>${w('edit')}</button>`}
        ${editing?.id === p.id && html`<${PaddockForm} farm=${farm} paddock=${p} onSaved=${paddocks.reload} onClose=${() => setEditing(null)} />`}
      </li>`;
    })}</ul>
    ${paddocks.data.length === 0 && html`<p class="muted">${w('none')}</p>`}
  </section>`;
}
