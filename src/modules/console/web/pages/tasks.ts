/**
 * Tasks: mine or everyone's, due today or overdue (in the farm's time zone), add, edit, done. A task made
 * from an alert links back to it. "Mine" means assigned to the signed-in person's email. A task may plan a
 * move (a group and the paddock it goes to): marking it done moves the group (docs/grazing.md).
 */
import { taskDue } from '../../../../domain/tasks.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, localInput, Submit, text, useForm } from '../form.ts';
import { words } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { alertLink } from '../links.ts';
import { EN, ES } from '../messages/tasks.ts';
import { useReader } from '../reader-hook.ts';
import { choices, type Places, usePlaces } from '../records.ts';
import { can, type Farm, signedIn, useStore } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Task = Schema<'Task'>;

const w = words(EN, ES);

/** A task's status in the reader's words. */
function statusName(status: string): string {
  return `status.${status}` in EN ? w(`status.${status}` as keyof typeof EN) : status;
}

const NAMES = ['title', 'notes', 'due_at', 'assignee', 'status', 'subject_id', 'paddock_id'];

/** The move a task plans, in words ("Move Herd to East"), or null. */
export function plannedMove(task: Task, names: Places['names']): string | null {
  if (!task.paddock_id) return null;
  const who = names.get(task.subject_id) ?? w(task.subject_type === 'animal' ? 'the_animal' : 'the_group');
  return w('move', { who, paddock: names.get(task.paddock_id) ?? w('a_paddock') });
}

/** 'overdue', 'today' or null: the brief's rule. */
export function dueState(task: Task, timezone: string, now = Date.now()): 'overdue' | 'today' | null {
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: timezone || undefined });
  const at = task.due_at ? Date.parse(task.due_at) : null;
  return taskDue({ due_at: at, status: task.status }, now, (ms) => day.format(ms));
}

/** Overdue, due today, the rest by due time, undated last (the API's are newest first). */
function dueOrder(tasks: readonly Task[], timezone: string): Task[] {
  const keyed = tasks.map((task) => {
    const due = dueState(task, timezone);
    const rank = due === 'overdue' ? 0 : due === 'today' ? 1 : task.due_at ? 2 : 3;
    return { task, rank, at: task.due_at ? Date.parse(task.due_at) : 0 };
  });
  return keyed.sort((a, b) => a.rank - b.rank || a.at - b.at).map((k) => k.task);
}

function TaskForm({
  farm,
  task,
  me,
  places,
  onSaved,
  onClose,
}: {
  farm: Farm;
  task?: Task;
  me: string;
  places: Places | null;
  onSaved(): void;
  onClose?: () => void;
}) {
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/farms/{farm}/tasks'> = {
      title: text(data, 'title') ?? '',
      notes: text(data, 'notes'),
      due_at: dateTime(data, 'due_at'),
      assignee: text(data, 'assignee'),
    };
    if (places) {
      // A planned move: the group to move is the task's subject (a task about an animal keeps it).
      const group = text(data, 'subject_id');
      body.paddock_id = text(data, 'paddock_id');
      if (group) Object.assign(body, { subject_type: 'group', subject_id: group });
      else if (task?.subject_type === 'group') Object.assign(body, { subject_type: null, subject_id: null });
    }
    if (task) {
      const status = text(data, 'status') ?? 'open';
      await api('PATCH', '/v1/tasks/{id}', { path: { id: task.id }, body: { ...body, status } });
    } else await api('POST', '/v1/farms/{farm}/tasks', { path: { farm: farm.id }, body });
    if (!task) el.reset();
    onSaved();
    onClose?.();
    return task ? w('saved') : w('added');
  });
  const t: Partial<Task> = task ?? {};
  const p = { error: form.error, idPrefix: task ? `t-${task.id}` : 't-new' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label=${task ? w('edit_named', { title: task.title }) : w('add')}>
    <h2>${task ? w('edit_task') : w('add')}</h2>
    <${Field} name="title" label=${w('task')} value=${t.title} required ...${p} />
    <div class="form-grid">
      <${Field} name="due_at" label=${w('due')} type="datetime-local" value=${localInput(t.due_at)} ...${p} />
      <${Field} name="assignee" label=${w('assignee')} value=${t.assignee ?? (task ? '' : me)} ...${p} />
      ${task && html`<${Field} name="status" label=${w('status')} type="select" value=${t.status} options=${(['open', 'in_progress', 'done', 'cancelled'] as const).map((s) => [s, statusName(s)] as const)} ...${p} />`}
    </div>
    ${
      places &&
      html`<fieldset class="form-grid planned-move"><legend>${w('planned_move')}</legend>
        <p class="small muted">${w('done_moves')}</p>
        ${
          t.subject_type === 'animal'
            ? html`<p class="small">${w('moves', { who: places.names.get(t.subject_id ?? null) ?? w('the_animal') })}</p>`
            : html`<${Field} name="subject_id" label=${w('group')} type="select" value=${t.subject_type === 'group' ? t.subject_id : ''} options=${choices(places.groups)} ...${p} />`
        }
        <${Field} name="paddock_id" label=${w('paddock')} type="select" value=${t.paddock_id ?? ''} options=${choices(places.paddocks, w('no_move'))} ...${p} />
      </fieldset>`
    }
    <${Field} name="notes" label=${w('notes')} type="textarea" value=${t.notes} ...${p} />
    <${Submit} form=${form} label=${task ? w('save') : w('submit')} names=${NAMES} />
    ${onClose && html`<button type="button" class="button link" onClick=${onClose}>${w('close')}</button>`}
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  useStore();
  const me = signedIn().person.email;
  const [filter, setFilter] = useState({ who: 'all', when: 'all', status: 'open' });
  const [editing, setEditing] = useState<Task | null>(null);
  const tasks = useLoad(
    () =>
      api('GET', '/v1/farms/{farm}/tasks', {
        path: { farm: farm.id },
        query: {
          status: filter.status || undefined,
          assignee: filter.who === 'mine' ? me : undefined,
          limit: 100,
        },
      }),
    [farm.id, filter.who, filter.status],
  );
  useFarmStream(farm.id, ['alert.created'], () => tasks.reload());
  const places = usePlaces(farm.id);
  if (!tasks.data) return html`<${Loading} error=${tasks.error} retry=${tasks.reload} />`;
  const shown = dueOrder(
    tasks.data.data.filter((t) => filter.when === 'all' || dueState(t, farm.timezone) === filter.when),
    farm.timezone,
  );
  const tab = (name: keyof typeof filter, value: string, label: string) =>
    html`<button type="button" class="tab" aria-pressed=${filter[name] === value}
      onClick=${() => setFilter({ ...filter, [name]: value })}>${label}</button>`;
  return html`<section>
    <h1>${w('title')}</h1>
    <div class="tabs" role="group" aria-label=${w('whose')}>${tab('who', 'all', w('all'))}${tab('who', 'mine', w('mine'))}</div>
    <div class="tabs" role="group" aria-label=${w('when')}>${tab('when', 'all', w('any_time'))}${tab('when', 'overdue', w('overdue'))}${tab('when', 'today', w('due_today'))}</div>
    <div class="tabs" role="group" aria-label=${w('status')}>${tab('status', 'open', w('open'))}${tab('status', 'done', w('done'))}${tab('status', '', w('all'))}</div>
    ${can('tasks', 'write') && html`<${TaskForm} farm=${farm} me=${me} places=${places.data} onSaved=${tasks.reload} />`}
    <ul class="cards">${shown.map((t) => {
      const due = dueState(t, farm.timezone);
      const alert = t.alert_id && alertLink(t.alert_id);
      return html`<li class=${`card task${due === 'overdue' ? ' alert watch' : ''}`} key=${t.id} id=${t.id}>
        <div class="card-head"><h2 class="card-title">${t.title}</h2>
          <span class=${`status ${t.status === 'done' ? 'resolved' : ''}`}>${statusName(t.status)}</span></div>
        <p class="small">${t.due_at ? w('due_at', { when: farmTime(t.due_at, farm.timezone) }) : w('no_due')}
          ${due === 'overdue' ? html` · <strong>${w('overdue')}</strong>` : due === 'today' ? ` · ${w('today')}` : ''}
          ${t.assignee ? ` · ${t.assignee}` : ''}</p>
        ${places.data && plannedMove(t, places.data.names) && html`<p class="small planned">${plannedMove(t, places.data.names)}</p>`}
        ${t.notes && html`<p>${t.notes}</p>`}
        ${alert && html`<p class="small"><a href=${alert}>${w('from_alert')}</a></p>`}
        ${
          can('tasks', 'write') &&
          html`<div class="actions">
            ${
              t.status !== 'done' &&
              html`<${ActionButton} label=${w('mark_done')} kind="primary" action=${async () => {
                await api('POST', '/v1/tasks/{id}/done', { path: { id: t.id } });
                tasks.reload();
                return w('marked_done');
              }} />`
            }
            <button type="button" class="button secondary" onClick=${() => setEditing(t)}>${w('edit')}</button>
          </div>`
        }
        ${editing?.id === t.id && html`<${TaskForm} farm=${farm} task=${t} me=${me} places=${places.data} onSaved=${tasks.reload} onClose=${() => setEditing(null)} />`}
      </li>`;
    })}</ul>
    ${shown.length === 0 && html`<p class="muted" role="status">${w('none')}</p>`}
  </section>`;
}
