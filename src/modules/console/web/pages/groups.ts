/**
 * Groups: head count, hatch date and age, paddock; add and edit; give a group a treatment (/treat?group_id=…);
 * a group's weights (issue 47: head weighed, mean, min, max, mean gain, the animals gaining least).
 */
import { groupKindWord, speciesWord } from '../../../../domain/animal-terms.ts';
import { api, type Schema } from '../api.ts';
import { date, Field, number, SpeciesList, Submit, text, useForm } from '../form.ts';
import { dateOf, reader, words } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { EN, ES } from '../messages/groups.ts';
import { useReader } from '../reader-hook.ts';
import { choices, gainWeight, loadGroups, loadPaddocks } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { amount, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Group = Schema<'Group'>;

const w = words(EN, ES);

/** A group's figures over each animal's latest weight (GET /v1/groups/{id}/weights). */
function GroupWeights({ group, timezone }: { group: Group; timezone: string }) {
  const figures = useLoad(
    () => api('GET', '/v1/groups/{id}/weights', { path: { id: group.id } }),
    [group.id],
  );
  const f = figures.data;
  if (!f) return html`<${Loading} error=${figures.error} retry=${figures.reload} />`;
  const kg = (v: number | null) => amount(v, 'kg');
  const gain = (v: number | null) => (v === null ? '—' : w('per_day', { weight: gainWeight(v) }));
  return html`<section class="panel group-weights" aria-labelledby="group-weights-title">
    <h2 id="group-weights-title">${w('weights_of', { name: group.name })}</h2>
    ${
      f.head_weighed === 0
        ? html`<p class="muted">${w('none_weighed', { count: f.head })}</p>`
        : html`<dl class="facts">
          <div><dt>${w('head_weighed')}</dt><dd>${w('head_weighed_value', { weighed: f.head_weighed, head: f.head })}</dd></div>
          <div><dt>${w('mean')}</dt><dd>${kg(f.mean_kg)}</dd></div>
          <div><dt>${w('lightest')}</dt><dd>${kg(f.min_kg)}</dd></div>
          <div><dt>${w('heaviest')}</dt><dd>${kg(f.max_kg)}</dd></div>
          <div><dt>${w('mean_gain')}</dt><dd>${gain(f.mean_adg_kg_per_day)}</dd></div>
          <div><dt>${w('last_weighed')}</dt><dd>${f.last_weighed_at ? farmTime(f.last_weighed_at, timezone) : '—'}</dd></div>
        </dl>
        ${
          f.lowest_gain.length > 0 &&
          html`<h3>${w('gaining_least')}</h3><ul>${f.lowest_gain.map(
            (a) =>
              html`<li><a href=${`/animals/${a.animal_id}`}>${a.tag ?? a.name ?? a.animal_id}</a>${w('least_line', { gain: gain(a.gain_kg_per_day), weight: kg(a.kg) })}</li>`,
          )}</ul>`
        }`
    }
  </section>`;
}

const NAMES = ['name', 'species', 'kind', 'head_count', 'hatch_date', 'paddock_id'];

/** "12 days", "9 weeks", "2 years" since a hatch or birth date, in the reader's language. */
export function age(iso: string | null, now = Date.now()): string {
  if (!iso) return '—';
  const days = Math.floor((now - Date.parse(iso)) / 86_400_000);
  if (days < 0) return w('not_yet');
  if (days < 28) return w('days', { count: days });
  if (days < 730) return w('weeks', { count: Math.floor(days / 7) });
  return w('years', { count: Math.floor(days / 365) });
}

function GroupForm({
  farm,
  group,
  paddocks,
  onSaved,
  onClose,
}: {
  farm: Farm;
  group?: Group;
  paddocks: Schema<'Paddock'>[];
  onSaved(): void;
  onClose?: () => void;
}) {
  const form = useForm(async (data) => {
    const kind = text(data, 'kind');
    const body = {
      name: text(data, 'name') ?? '',
      species: text(data, 'species') ?? '',
      head_count: number(data, 'head_count'),
      hatch_date: date(data, 'hatch_date'),
      paddock_id: text(data, 'paddock_id'),
      ...(kind ? { kind } : {}),
    };
    if (group) await api('PATCH', '/v1/groups/{id}', { path: { id: group.id }, body });
    else await api('POST', '/v1/farms/{farm}/groups', { path: { farm: farm.id }, body });
    onSaved();
    onClose?.();
    return group ? w('saved') : w('added');
  });
  const g: Partial<Group> = group ?? {};
  const p = { error: form.error, idPrefix: group ? `g-${group.id}` : 'g-new' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label=${group ? w('edit_name', { name: group.name }) : w('add')}>
    <h2>${group ? w('edit_name', { name: group.name }) : w('add')}</h2>
    <div class="form-grid">
      <${Field} name="name" label=${w('name')} value=${g.name} required ...${p} />
      <${Field} name="species" label=${w('species')} value=${g.species} required list="group-species" ...${p} />
      <${SpeciesList} id="group-species" />
      <${Field} name="kind" label=${w('kind')} value=${g.kind} ...${p} />
      <${Field} name="head_count" label=${w('head_count')} type="number" min="0" step="1" value=${g.head_count} ...${p} />
      <${Field} name="hatch_date" label=${w('hatch_date')} type="date" value=${g.hatch_date?.slice(0, 10)} ...${p} />
      <${Field} name="paddock_id" label=${w('paddock')} type="select" value=${g.paddock_id} options=${choices(paddocks)} ...${p} />
    </div>
    <${Submit} form=${form} label=${group ? w('save') : w('add_submit')} names=${NAMES} />
    ${onClose && html`<button type="button" class="button link" onClick=${onClose}>${w('close')}</button>`}
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const data = useLoad(async () => {
    const [groups, paddocks] = await Promise.all([loadGroups(farm.id), loadPaddocks(farm.id)]);
    return { groups, paddocks, names: new Map<string | null, string>(paddocks.map((p) => [p.id, p.name])) };
  }, [farm.id]);
  const [editing, setEditing] = useState<Group | null>(null);
  const [adding, setAdding] = useState(false);
  const [weighed, setWeighed] = useState<Group | null>(null);
  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  const { groups, paddocks, names } = data.data;
  const write = can('groups', 'write');
  return html`<section>
    <h1>${w('title')}</h1>
    ${write && !adding && html`<button type="button" class="button primary" onClick=${() => setAdding(true)}>${w('add')}</button>`}
    ${adding && html`<${GroupForm} farm=${farm} paddocks=${paddocks} onSaved=${data.reload} onClose=${() => setAdding(false)} />`}
    <div class="table-wrap"><table class="records as-cards">
      <caption class="visually-hidden">${w('title')}</caption>
      <thead><tr><th scope="col">${w('name')}</th><th scope="col">${w('species')}</th><th scope="col" class="num">${w('head')}</th>
        <th scope="col">${w('age')}</th><th scope="col">${w('paddock')}</th>${write && html`<th scope="col"><span class="visually-hidden">${w('edit')}</span></th>`}</tr></thead>
      <tbody>${groups.map(
        (g) => html`<tr key=${g.id} id=${g.id}>
          <td class="card-title"><a href=${`/animals?group_id=${g.id}`}>${g.name}</a><br /><span class="small muted">${groupKindWord(reader.language, g.kind)}</span>
            ${can('animals', 'write') && html`<br /><a class="small" href=${`/treat?group_id=${g.id}`} aria-label=${w('treat_named', { name: g.name })}>${w('treat')}</a>`}
            <br /><button type="button" class="button link small" onClick=${() => setWeighed(g)} aria-label=${w('weights_of', { name: g.name })}>${w('weights')}</button></td>
          <td>${speciesWord(reader.language, g.species)}</td><td class="num" data-label=${w('head')}>${g.head_count ?? '—'}</td>
          <td data-label=${w('age')}>${age(g.hatch_date)}${g.hatch_date && html`<br /><span class="small muted">${dateOf(g.hatch_date)}</span>`}</td>
          <td data-label=${w('paddock')}>${names.get(g.paddock_id) ?? '—'}</td>
          ${write && html`<td><button type="button" class="button link" onClick=${() => setEditing(g)}>${w('edit')}</button></td>`}
        </tr>`,
      )}</tbody></table></div>
    ${groups.length === 0 && html`<p class="muted">${w('none')}</p>`}
    ${weighed && html`<${GroupWeights} key=${weighed.id} group=${weighed} timezone=${farm.timezone} />`}
    ${editing && html`<${GroupForm} key=${editing.id} farm=${farm} group=${editing} paddocks=${paddocks} onSaved=${data.reload} onClose=${() => setEditing(null)} />`}
  </section>`;
}
