/**
 * Groups: head count, hatch date and age, paddock; add and edit; give a group a treatment (/treat?group_id=…);
 * a group's weights (issue 47: head weighed, mean, min, max, mean gain, the animals gaining least).
 */
import { api, type Schema } from '../api.ts';
import { date, Field, number, Submit, text, useForm } from '../form.ts';
import { shown, unitLabel } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { choices, loadGroups, loadPaddocks } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { amount, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Group = Schema<'Group'>;

/** A group's figures over each animal's latest weight (GET /v1/groups/{id}/weights). */
function GroupWeights({ group, timezone }: { group: Group; timezone: string }) {
  const figures = useLoad(
    () => api('GET', '/v1/groups/{id}/weights', { path: { id: group.id } }),
    [group.id],
  );
  const f = figures.data;
  if (!f) return html`<${Loading} error=${figures.error} retry=${figures.reload} />`;
  const kg = (v: number | null) => amount(v === null ? null : shown(v, 'kg'), unitLabel('kg'));
  const gain = (v: number | null) =>
    v === null ? '—' : `${shown(v, 'kg').toFixed(2)} ${unitLabel('kg')} a day`;
  return html`<section class="panel group-weights" aria-labelledby="group-weights-title">
    <h2 id="group-weights-title">${`Weights of ${group.name}`}</h2>
    ${
      f.head_weighed === 0
        ? html`<p class="muted">${`None of its ${f.head} animals has been weighed yet.`}</p>`
        : html`<dl class="facts">
          <div><dt>Head weighed</dt><dd>${`${f.head_weighed} of ${f.head}`}</dd></div>
          <div><dt>Mean</dt><dd>${kg(f.mean_kg)}</dd></div>
          <div><dt>Lightest</dt><dd>${kg(f.min_kg)}</dd></div>
          <div><dt>Heaviest</dt><dd>${kg(f.max_kg)}</dd></div>
          <div><dt>Mean daily gain</dt><dd>${gain(f.mean_adg_kg_per_day)}</dd></div>
          <div><dt>Last weighed</dt><dd>${f.last_weighed_at ? farmTime(f.last_weighed_at, timezone) : '—'}</dd></div>
        </dl>
        ${
          f.lowest_gain.length > 0 &&
          html`<h3>Gaining least</h3><ul>${f.lowest_gain.map(
            (a) =>
              html`<li><a href=${`/animals/${a.animal_id}`}>${a.tag ?? a.name ?? a.animal_id}</a>${`: ${gain(a.gain_kg_per_day)}, ${kg(a.kg)}`}</li>`,
          )}</ul>`
        }`
    }
  </section>`;
}

const NAMES = ['name', 'species', 'kind', 'head_count', 'hatch_date', 'paddock_id'];

/** "12 days", "9 weeks", "2 years" since a hatch or birth date. */
export function age(iso: string | null, now = Date.now()): string {
  if (!iso) return '—';
  const days = Math.floor((now - Date.parse(iso)) / 86_400_000);
  if (days < 0) return 'not yet';
  if (days < 28) return `${days} day${days === 1 ? '' : 's'}`;
  if (days < 730) return `${Math.floor(days / 7)} weeks`;
  return `${Math.floor(days / 365)} years`;
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
    return group ? 'Saved' : 'Group added';
  });
  const g: Partial<Group> = group ?? {};
  const p = { error: form.error, idPrefix: group ? `g-${group.id}` : 'g-new' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label=${group ? `Edit ${group.name}` : 'Add a group'}>
    <h2>${group ? `Edit ${group.name}` : 'Add a group'}</h2>
    <div class="form-grid">
      <${Field} name="name" label="Name" value=${g.name} required ...${p} />
      <${Field} name="species" label="Species" value=${g.species} required ...${p} />
      <${Field} name="kind" label="Kind (flock, herd…)" value=${g.kind} ...${p} />
      <${Field} name="head_count" label="Head count" type="number" min="0" step="1" value=${g.head_count} ...${p} />
      <${Field} name="hatch_date" label="Hatch or birth date" type="date" value=${g.hatch_date?.slice(0, 10)} ...${p} />
      <${Field} name="paddock_id" label="Paddock" type="select" value=${g.paddock_id} options=${choices(paddocks)} ...${p} />
    </div>
    <${Submit} form=${form} label=${group ? 'Save' : 'Add group'} names=${NAMES} />
    ${onClose && html`<button type="button" class="button link" onClick=${onClose}>Close</button>`}
  </form>`;
}

export function Page({ farm }: PageProps) {
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
    <h1>Groups</h1>
    ${write && !adding && html`<button type="button" class="button primary" onClick=${() => setAdding(true)}>Add a group</button>`}
    ${adding && html`<${GroupForm} farm=${farm} paddocks=${paddocks} onSaved=${data.reload} onClose=${() => setAdding(false)} />`}
    <div class="table-wrap"><table class="records as-cards">
      <caption class="visually-hidden">Groups</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Species</th><th scope="col" class="num">Head</th>
        <th scope="col">Age</th><th scope="col">Paddock</th>${write && html`<th scope="col"><span class="visually-hidden">Edit</span></th>`}</tr></thead>
      <tbody>${groups.map(
        (g) => html`<tr key=${g.id} id=${g.id}>
          <td class="card-title"><a href=${`/animals?group_id=${g.id}`}>${g.name}</a><br /><span class="small muted">${g.kind}</span>
            ${can('animals', 'write') && html`<br /><a class="small" href=${`/treat?group_id=${g.id}`}>Give a treatment<span class="visually-hidden"> to ${g.name}</span></a>`}
            <br /><button type="button" class="button link small" onClick=${() => setWeighed(g)}>Weights<span class="visually-hidden"> of ${g.name}</span></button></td>
          <td>${g.species}</td><td class="num" data-label="Head">${g.head_count ?? '—'}</td>
          <td>${age(g.hatch_date)}${g.hatch_date && html`<br /><span class="small muted">${g.hatch_date.slice(0, 10)}</span>`}</td>
          <td data-label="Paddock">${names.get(g.paddock_id) ?? '—'}</td>
          ${write && html`<td><button type="button" class="button link" onClick=${() => setEditing(g)}>Edit</button></td>`}
        </tr>`,
      )}</tbody></table></div>
    ${groups.length === 0 && html`<p class="muted">No groups yet.</p>`}
    ${weighed && html`<${GroupWeights} key=${weighed.id} group=${weighed} timezone=${farm.timezone} />`}
    ${editing && html`<${GroupForm} key=${editing.id} farm=${farm} group=${editing} paddocks=${paddocks} onSaved=${data.reload} onClose=${() => setEditing(null)} />`}
  </section>`;
}
