/**
 * Pieces the record pages share: the farm's groups and paddocks (for choosers and names), a pager over the
 * API's `before` cursor, and the animal form (every spec field, custom `fields` as key/value rows).
 */
import { api, type Body, type Page, type Problem, type Schema } from './api.ts';
import { Field, SpeciesList, text } from './form.ts';
import { fixed, shown, unitLabel, words } from './i18n.ts';
import { html, inputValue, useState } from './lib.ts';
import { EN, ES } from './messages/records.ts';
import { ErrorText, useLoad } from './ui.ts';

export type Animal = Schema<'Animal'>;
type AnimalBody = Body<'POST', '/v1/farms/{farm}/animals'>;

const w = words(EN, ES);

/** A day's gain as every page writes it: "0.85 kg", "1.87 lb", never "-0.00". */
export function gainWeight(kg: number): string {
  return `${fixed(+shown(kg, 'kg').toFixed(2) || 0)} ${unitLabel('kg')}`;
}

/** Every page of a list, up to `max` records (groups and paddocks are few); `page(before)` asks for one. */
export async function loadAll<T>(
  page: (before: string | undefined) => Promise<Page<T>>,
  max = 500,
): Promise<T[]> {
  const out: T[] = [];
  let before: string | undefined;
  while (out.length < max) {
    const next = await page(before);
    out.push(...next.data);
    if (!next.has_more || next.next_before === null) break;
    before = next.next_before;
  }
  return out;
}

/** The farm's groups, every page. */
export function loadGroups(farm: string) {
  return loadAll((before) =>
    api('GET', '/v1/farms/{farm}/groups', { path: { farm }, query: { limit: 100, before } }),
  );
}

/** The farm's paddocks, every page. */
export function loadPaddocks(farm: string) {
  return loadAll((before) =>
    api('GET', '/v1/farms/{farm}/paddocks', { path: { farm }, query: { limit: 100, before } }),
  );
}

export interface Places {
  groups: Schema<'Group'>[];
  paddocks: Schema<'Paddock'>[];
  names: Map<string | null, string>;
}

/** The farm's groups and paddocks, for choosers and for showing names instead of ids. */
export function usePlaces(farmId: string) {
  return useLoad<Places>(async () => {
    const [groups, paddocks] = await Promise.all([loadGroups(farmId), loadPaddocks(farmId)]);
    const names = new Map<string | null, string>([...groups, ...paddocks].map((r) => [r.id, r.name]));
    return { groups, paddocks, names };
  }, [farmId]);
}

/** Choices for a group or paddock select, with "none" first. */
export function choices(
  records: readonly { id: string; name: string }[],
  none = w('none'),
): [string, string][] {
  return [['', none], ...records.map((r): [string, string] => [r.id, r.name])];
}

export interface Pager {
  before: string | undefined;
  number: number;
  next(cursor: string | null): void;
  previous(): void;
}

/**
 * A cursor pager: `cursor` is the `before` of the shown page; going back pops the stack. Pages are
 * fetched by the caller with `before`; `next(page)` takes the page's `next_before`.
 */
export function usePager(resetKey: string): Pager {
  const [state, setState] = useState<{ key: string; stack: string[] }>({ key: resetKey, stack: [] });
  const stack = state.key === resetKey ? state.stack : [];
  return {
    before: stack.at(-1),
    number: stack.length + 1,
    next: (cursor) => {
      if (cursor !== null) setState({ key: resetKey, stack: [...stack, cursor] });
    },
    previous: () => setState({ key: resetKey, stack: stack.slice(0, -1) }),
  };
}

export function Pager({ pager, page }: { pager: Pager; page: Page<unknown> | null }) {
  return html`<nav class="pager" aria-label=${w('pages')}>
    <button type="button" class="button secondary" disabled=${pager.number === 1} onClick=${pager.previous}>${w('newer')}</button>
    <span>${w('page', { number: pager.number })}</span>
    <button type="button" class="button secondary" disabled=${!page?.has_more}
      onClick=${() => pager.next(page?.next_before ?? null)}>${w('older')}</button>
  </nav>`;
}

/** Custom fields as key/value rows; values that read as numbers, true/false or JSON are kept typed. */
export function FieldRows({
  fields,
  error,
}: {
  fields: Record<string, unknown> | undefined;
  error: Problem | null;
}) {
  const [rows, setRows] = useState<[string, string][]>(() => {
    const entries = Object.entries(fields ?? {}).map(([k, v]): [string, string] => [
      k,
      typeof v === 'string' ? v : JSON.stringify(v),
    ]);
    return entries.length ? entries : [['', '']];
  });
  const set = (i: number, j: 0 | 1, v: string) =>
    setRows(rows.map((r, n): [string, string] => (n === i ? (j === 0 ? [v, r[1]] : [r[0], v]) : r)));
  return html`<fieldset class="field-rows">
    <legend>${w('custom')}</legend>
    ${rows.map(
      (row, i) => html`<div class="kv" key=${i}>
        <input name="field_key" aria-label=${w('custom_name', { number: i + 1 })} placeholder=${w('name_placeholder')} value=${row[0]}
          onInput=${(e: Event) => set(i, 0, inputValue(e))} />
        <input name="field_value" aria-label=${w('custom_value', { number: i + 1 })} placeholder=${w('value_placeholder')} value=${row[1]}
          onInput=${(e: Event) => set(i, 1, inputValue(e))} />
        <button type="button" class="button link" aria-label=${w('remove_label', { number: i + 1 })}
          onClick=${() => setRows(rows.filter((_, n) => n !== i))}>${w('remove')}</button>
      </div>`,
    )}
    <button type="button" class="button secondary" onClick=${() => setRows([...rows, ['', '']])}>${w('add_field')}</button>
    <${ErrorText} error=${error?.param?.startsWith('fields') ? error : null} label=${w('custom')} />
  </fieldset>`;
}

function typed(value: string): unknown {
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
export function readFields(data: FormData, before: Record<string, unknown> = {}): Record<string, unknown> {
  const keys = data.getAll('field_key').map((k) => String(k).trim());
  const values = data.getAll('field_value').map(String);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(before)) out[key] = null;
  keys.forEach((key, i) => {
    if (key) out[key] = typed(values[i] ?? '');
  });
  return out;
}

export const ANIMAL_STATUSES = ['active', 'sold', 'slaughtered', 'dead', 'culled', 'missing'];

const STATUSES: Record<string, keyof typeof EN> = {
  active: 'status_active',
  sold: 'status_sold',
  slaughtered: 'status_slaughtered',
  dead: 'status_dead',
  culled: 'status_culled',
  missing: 'status_missing',
};

/** An animal's status in the reader's words (one the console does not know, as the API sends it). */
export function statusWord(status: string): string {
  const key = STATUSES[status];
  return key ? w(key) : status;
}
/** The animal form's members, each a field (and a member of the API's body). */
const ANIMAL_TEXT_MEMBERS = [
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
] as const satisfies readonly (keyof AnimalBody & keyof Animal)[];
export const ANIMAL_FIELD_NAMES: readonly string[] = [...ANIMAL_TEXT_MEMBERS, 'fields'];

/** The animal form's fields (add and edit). */
export function AnimalFields({
  animal,
  places,
  error,
  idPrefix,
}: {
  animal?: Animal;
  places: Places;
  error: Problem | null;
  idPrefix: string;
}) {
  const a: Partial<Animal> = animal ?? {};
  const p = { error, idPrefix };
  return html`<div class="form-grid">
    <${Field} name="species" label=${w('species')} value=${a.species} required ...${p} list="species-list" />
    <${Field} name="tag" label=${w('tag')} value=${a.tag} ...${p} />
    <${Field} name="name" label=${w('name')} value=${a.name} ...${p} />
    <${Field} name="eid" label=${w('eid')} value=${a.eid} ...${p} />
    <${Field} name="sex" label=${w('sex')} value=${a.sex} ...${p} />
    <${Field} name="breed" label=${w('breed')} value=${a.breed} ...${p} />
    <${Field} name="birth_date" label=${w('birth_date')} type="date" value=${a.birth_date?.slice(0, 10)} ...${p} />
    <${Field} name="status" label=${w('status')} type="select" value=${a.status ?? 'active'} options=${ANIMAL_STATUSES.map((s) => [s, statusWord(s)] as const)} ...${p} />
    <${Field} name="group_id" label=${w('group')} type="select" value=${a.group_id} options=${choices(places.groups)} ...${p} />
    <${Field} name="paddock_id" label=${w('paddock')} type="select" value=${a.paddock_id} options=${choices(places.paddocks)} ...${p} />
  </div>
  <${Field} name="notes" label=${w('notes')} type="textarea" value=${a.notes} ...${p} />
  <${FieldRows} fields=${a.fields} error=${error} />
  <${SpeciesList} id="species-list" />`;
}

/**
 * The API body from the animal form: every member when adding, only what changed when editing (`before`).
 * `species` and `status` are never blank (a required field, a select), so their null never goes out.
 */
export function animalBody(data: FormData, before?: Animal): AnimalBody {
  const body: Record<string, unknown> = {};
  // Every member but the custom `fields`, which come from their own key/value rows below.
  for (const name of ANIMAL_TEXT_MEMBERS) {
    const value = text(data, name);
    const was = before?.[name];
    const old = was === undefined ? null : name === 'birth_date' ? (was?.slice(0, 10) ?? null) : was;
    if (before ? value !== old : value !== null) body[name] = value;
  }
  const fields = readFields(data, before?.fields);
  if (Object.keys(fields).length > 0) body.fields = fields;
  return body as AnimalBody;
}
