/**
 * Groups: head count, hatch date and age, paddock; add and edit; give a group a treatment (/treat?group_id=…).
 */
import { api, type Schema } from '../api.ts';
import { date, Field, number, Submit, text, useForm } from '../form.ts';
import { html, useState } from '../lib.ts';
import { choices, loadGroups, loadPaddocks } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Group = Schema<'Group'>;

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
            ${can('animals', 'write') && html`<br /><a class="small" href=${`/treat?group_id=${g.id}`} aria-label=${`Give ${g.name} a treatment`}>Give a treatment</a>`}</td>
          <td>${g.species}</td><td class="num" data-label="Head">${g.head_count ?? '—'}</td>
          <td>${age(g.hatch_date)}${g.hatch_date && html`<br /><span class="small muted">${g.hatch_date.slice(0, 10)}</span>`}</td>
          <td data-label="Paddock">${names.get(g.paddock_id) ?? '—'}</td>
          ${write && html`<td><button type="button" class="button link" onClick=${() => setEditing(g)}>Edit</button></td>`}
        </tr>`,
      )}</tbody></table></div>
    ${groups.length === 0 && html`<p class="muted">No groups yet.</p>`}
    ${editing && html`<${GroupForm} key=${editing.id} farm=${farm} group=${editing} paddocks=${paddocks} onSaved=${data.reload} onClose=${() => setEditing(null)} />`}
  </section>`;
}
