/**
 * The event log: everything logged on the farm (treatments, weights, moves, device events…), filtered by
 * type and subject, and a form to add an event.
 */
import { api, type Body } from '../api.ts';
import { dateTime, Field, Submit, text, useForm } from '../form.ts';
import { html, inputValue, useState } from '../lib.ts';
import { subjectLink } from '../links.ts';
import { Pager, usePager } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const SUBJECT_TYPES = ['', 'animal', 'group', 'paddock', 'device', 'task'];

function AddEvent({ farm, onAdded }: { farm: Farm; onAdded(): void }) {
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/farms/{farm}/events'> = { type: text(data, 'type') ?? '', data: {} };
    const subjectType = text(data, 'subject_type');
    const subjectId = text(data, 'subject_id');
    if (subjectType) body.subject_type = subjectType;
    if (subjectId) body.subject_id = subjectId;
    const notes = text(data, 'notes');
    if (notes) body.data = { notes };
    const at = dateTime(data, 'at');
    if (at) body.at = at;
    await api('POST', '/v1/farms/{farm}/events', { path: { farm: farm.id }, body });
    el.reset();
    onAdded();
    return 'Event logged';
  });
  const p = { error: form.error, idPrefix: 'ev' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label="Log an event">
    <h2>Log an event</h2>
    <div class="form-grid">
      <${Field} name="type" label="Type" required list="event-types" ...${p} />
      <${Field} name="subject_type" label="About a" type="select" options=${SUBJECT_TYPES.map((s) => [s, s || '— nothing —'])} ...${p} />
      <${Field} name="subject_id" label="Its id" ...${p} />
      <${Field} name="at" label="When (blank for now)" type="datetime-local" ...${p} />
    </div>
    <${Field} name="notes" label="Notes" type="textarea" ...${p} />
    <datalist id="event-types">${['treatment', 'weight', 'birth', 'move', 'sale', 'note', 'death', 'feed.delivery'].map((t) => html`<option value=${t} />`)}</datalist>
    <${Submit} form=${form} label="Log event" names=${['type', 'subject_type', 'subject_id', 'at', 'data']} />
  </form>`;
}

export function Page({ farm }: PageProps) {
  const [filters, setFilters] = useState(() => {
    const params = new URLSearchParams(location.search);
    return { type: params.get('type') ?? '', subject_id: params.get('subject_id') ?? '' };
  });
  const pager = usePager(JSON.stringify(filters));
  const events = useLoad(
    () =>
      api('GET', '/v1/farms/{farm}/events', {
        path: { farm: farm.id },
        query: {
          type: filters.type || undefined,
          subject_id: filters.subject_id || undefined,
          limit: 50,
          before: pager.before,
        },
      }),
    [farm.id, JSON.stringify(filters), pager.before],
  );
  useFarmStream(farm.id, ['event.created'], () => events.reload());
  const set = (name: keyof typeof filters) => (e: Event) =>
    setFilters({ ...filters, [name]: inputValue(e).trim() });
  return html`<section>
    <h1>Event log</h1>
    <form class="filters" role="search" onSubmit=${(e: Event) => e.preventDefault()}>
      <div class="field"><label for="event-type">Type</label>
        <input id="event-type" list="event-types-filter" value=${filters.type} onChange=${set('type')} /></div>
      <div class="field grow"><label for="event-subject">Subject id</label>
        <input id="event-subject" value=${filters.subject_id} placeholder="ani_…, dev_…, pad_…" onChange=${set('subject_id')} /></div>
      <datalist id="event-types-filter">${['treatment', 'weight', 'birth', 'move', 'sale', 'note'].map((t) => html`<option value=${t} />`)}</datalist>
    </form>
    ${can('events', 'write') && html`<${AddEvent} farm=${farm} onAdded=${events.reload} />`}
    ${
      !events.data
        ? html`<${Loading} error=${events.error} retry=${events.reload} />`
        : html`<ul class="history">${events.data.data.map((e) => {
            const link =
              e.subject_type === 'animal'
                ? `/animals/${e.subject_id}`
                : subjectLink(e.subject_type, e.subject_id);
            return html`<li key=${e.id} id=${e.id}><span class="when">${farmTime(e.at, farm.timezone)}</span>
              <strong>${e.type}</strong>${' '}
              ${e.subject_type && (link ? html`<a href=${link}>${e.subject_type}</a>` : html`<span>${e.subject_type}</span>`)}
              ${' '}<span class="muted">${Object.keys(e.data).length ? JSON.stringify(e.data) : ''}</span></li>`;
          })}</ul>
          ${events.data.data.length === 0 && html`<p class="muted">No events match.</p>`}
          <${Pager} pager=${pager} page=${events.data} />`
    }
  </section>`;
}
