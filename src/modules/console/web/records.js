/**
 * Pieces the record pages share: the farm's groups and paddocks (for choosers and names), a pager over the
 * API's `before` cursor, and the animal form (every spec field, custom `fields` as key/value rows).
 */
import { api, query } from './api.js';
import { Field, text } from './form.js';
import { html, useState } from './lib.js';
import { useLoad } from './ui.js';

/** Every page of a farm list, up to `max` records (groups and paddocks are few). */
export async function loadAll(path, max = 500) {
  const out = [];
  let before;
  while (out.length < max) {
    const more = query({ limit: 100, before });
    const page = await api('GET', path.includes('?') ? `${path}&${more.slice(1)}` : `${path}${more}`);
    out.push(...page.data);
    if (!page.has_more) break;
    before = page.next_before;
  }
  return out;
}

/** The farm's groups and paddocks, for choosers and for showing names instead of ids. */
export function usePlaces(farmId) {
  return useLoad(async () => {
    const [groups, paddocks] = await Promise.all([
      loadAll(`/v1/farms/${farmId}/groups`),
      loadAll(`/v1/farms/${farmId}/paddocks`),
    ]);
    const names = new Map([...groups, ...paddocks].map((r) => [r.id, r.name]));
    return { groups, paddocks, names };
  }, [farmId]);
}

/** Choices for a group or paddock select, with "none" first. */
export function choices(records, none = '— none —') {
  return [['', none], ...records.map((r) => [r.id, r.name])];
}

/**
 * A cursor pager: `cursor` is the `before` of the shown page; going back pops the stack. Pages are
 * fetched by the caller with `before`; `next(page)` takes the page's `next_before`.
 */
export function usePager(resetKey) {
  const [state, setState] = useState({ key: resetKey, stack: [] });
  const stack = state.key === resetKey ? state.stack : [];
  return {
    before: stack.at(-1),
    number: stack.length + 1,
    next: (cursor) => setState({ key: resetKey, stack: [...stack, cursor] }),
    previous: () => setState({ key: resetKey, stack: stack.slice(0, -1) }),
  };
}

export function Pager({ pager, page }) {
  return html`<nav class="pager" aria-label="Pages">
    <button type="button" class="button secondary" disabled=${pager.number === 1} onClick=${pager.previous}>Newer</button>
    <span>Page ${pager.number}</span>
    <button type="button" class="button secondary" disabled=${!page?.has_more}
      onClick=${() => pager.next(page.next_before)}>Older</button>
  </nav>`;
}

/** Custom fields as key/value rows; values that read as numbers, true/false or JSON are kept typed. */
export function FieldRows({ fields, error }) {
  const [rows, setRows] = useState(() => {
    const entries = Object.entries(fields ?? {}).map(([k, v]) => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]);
    return entries.length ? entries : [['', '']];
  });
  const set = (i, j, v) => setRows(rows.map((r, n) => (n === i ? (j === 0 ? [v, r[1]] : [r[0], v]) : r)));
  return html`<fieldset class="field-rows">
    <legend>Custom fields</legend>
    ${rows.map(
      (row, i) => html`<div class="kv" key=${i}>
        <input name="field_key" aria-label=${`Custom field ${i + 1} name`} placeholder="name" value=${row[0]}
          onInput=${(e) => set(i, 0, e.currentTarget.value)} />
        <input name="field_value" aria-label=${`Custom field ${i + 1} value`} placeholder="value" value=${row[1]}
          onInput=${(e) => set(i, 1, e.currentTarget.value)} />
        <button type="button" class="button link" aria-label=${`Remove custom field ${i + 1}`}
          onClick=${() => setRows(rows.filter((_, n) => n !== i))}>Remove</button>
      </div>`,
    )}
    <button type="button" class="button secondary" onClick=${() => setRows([...rows, ['', '']])}>Add a field</button>
    ${error?.param?.startsWith('fields') && html`<p class="error" role="alert">${error.message}</p>`}
  </fieldset>`;
}

function typed(value) {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (value !== '' && Number.isFinite(Number(value))) return Number(value);
  if (/^[[{]/.test(value)) {
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  return value;
}

/** The `fields` object from the key/value rows; keys removed since `before` are sent as null (removed). */
export function readFields(data, before = {}) {
  const keys = data.getAll('field_key').map((k) => String(k).trim());
  const values = data.getAll('field_value').map(String);
  const out = {};
  for (const key of Object.keys(before ?? {})) out[key] = null;
  keys.forEach((key, i) => {
    if (key) out[key] = typed(values[i] ?? '');
  });
  return out;
}

export const ANIMAL_STATUSES = ['active', 'sold', 'dead', 'culled', 'missing'];
export const ANIMAL_FIELD_NAMES = [
  'species',
  'name',
  'tag',
  'eid',
  'sex',
  'breed',
  'birth_date',
  'group_id',
  'paddock_id',
  'status',
  'notes',
  'fields',
];

/** The animal form's fields (add and edit). */
export function AnimalFields({ animal, places, error, idPrefix }) {
  const a = animal ?? {};
  const p = { error, idPrefix };
  return html`<div class="form-grid">
    <${Field} name="species" label="Species" value=${a.species} required ...${p} list="species-list" />
    <${Field} name="tag" label="Tag" value=${a.tag} ...${p} />
    <${Field} name="name" label="Name" value=${a.name} ...${p} />
    <${Field} name="eid" label="Electronic id (EID)" value=${a.eid} ...${p} />
    <${Field} name="sex" label="Sex" value=${a.sex} ...${p} />
    <${Field} name="breed" label="Breed" value=${a.breed} ...${p} />
    <${Field} name="birth_date" label="Birth date" type="date" value=${a.birth_date?.slice(0, 10)} ...${p} />
    <${Field} name="status" label="Status" type="select" value=${a.status ?? 'active'} options=${ANIMAL_STATUSES} ...${p} />
    <${Field} name="group_id" label="Group" type="select" value=${a.group_id} options=${choices(places.groups)} ...${p} />
    <${Field} name="paddock_id" label="Paddock" type="select" value=${a.paddock_id} options=${choices(places.paddocks)} ...${p} />
  </div>
  <${Field} name="notes" label="Notes" type="textarea" value=${a.notes} ...${p} />
  <${FieldRows} fields=${a.fields} error=${error} />
  <datalist id="species-list">${['cattle', 'sheep', 'goat', 'pig', 'chicken', 'dog', 'horse'].map((s) => html`<option value=${s} />`)}</datalist>`;
}

/** The API body from the animal form. */
export function animalBody(data, before) {
  const body = {};
  // Every member but the custom `fields`, which come from their own key/value rows below.
  for (const name of ANIMAL_FIELD_NAMES.filter((n) => n !== 'fields')) {
    const value = text(data, name);
    if (
      before
        ? value !==
          (before[name] === undefined
            ? null
            : name === 'birth_date'
              ? (before[name]?.slice(0, 10) ?? null)
              : before[name])
        : value !== null
    ) {
      body[name] = value;
    }
  }
  const fields = readFields(data, before?.fields);
  if (Object.keys(fields).length > 0) body.fields = fields;
  return body;
}
