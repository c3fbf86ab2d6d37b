/**
 * The event log: everything logged on the farm (treatments, weights, moves, device events…) read as
 * sentences in the person's language and units (web/event-sentences.ts), filtered by type and by what it is
 * about (the subject picker, no ids), and a form to add an event. Ids and the raw data stay in each event's
 * "technical details" disclosure.
 */
import { api, type Body } from '../api.ts';
import { eventSentence, type Names } from '../event-sentences.ts';
import { eventTypeName, KNOWN_EVENT_TYPES } from '../event-types.ts';
import { dateTime, Field, Submit, text, useForm } from '../form.ts';
import { t } from '../i18n.ts';
import { html, inputValue, useState } from '../lib.ts';
import { subjectLink } from '../links.ts';
import { useNames } from '../names.ts';
import { useReader } from '../reader-hook.ts';
import { Pager, usePager } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { type SubjectChoice, SubjectPicker } from '../subject-picker.ts';
import { farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

/** The types a person logs by hand here, the known ones first; "Other" takes a custom type. */
const LOGGED_TYPES = [
  'note',
  'weight',
  'treatment',
  'birth',
  'death',
  'sale',
  'feed.delivery',
  'egg.collection',
];
const OTHER = '__other';

function AddEvent({ farm, names, onAdded }: { farm: Farm; names: Names; onAdded(): void }) {
  const [type, setType] = useState(LOGGED_TYPES[0] as string);
  const form = useForm(async (data, el) => {
    const chosen = type === OTHER ? (text(data, 'custom_type') ?? '') : type;
    const body: Body<'POST', '/v1/farms/{farm}/events'> = { type: chosen, data: {} };
    const subjectType = text(data, 'subject_type');
    const subjectId = text(data, 'subject_id');
    if (subjectType && subjectId) {
      body.subject_type = subjectType;
      body.subject_id = subjectId;
    }
    const notes = text(data, 'notes');
    if (notes) body.data = { [type === 'note' ? 'text' : 'notes']: notes };
    const at = dateTime(data, 'at');
    if (at) body.at = at;
    await api('POST', '/v1/farms/{farm}/events', { path: { farm: farm.id }, body });
    el.reset();
    onAdded();
    return t('events.logged');
  });
  const p = { error: form.error, idPrefix: 'ev' };
  const typeOptions: [string, string][] = [
    ...LOGGED_TYPES.map((k): [string, string] => [k, eventTypeName(k)]),
    [OTHER, eventTypeName('…')],
  ];
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-label=${t('events.log_title')}>
    <h2>${t('events.log_title')}</h2>
    <div class="form-grid">
      <div class="field"><label for="ev-type">${t('events.type')}</label>
        <select id="ev-type" name="type_choice" value=${type} onChange=${(e: Event) => setType(inputValue(e))}>
          ${typeOptions.map(([v, label]) => html`<option value=${v} selected=${v === type}>${label}</option>`)}
        </select></div>
      ${type === OTHER && html`<${Field} name="custom_type" label=${t('events.type')} required ...${p} />`}
      <${SubjectPicker} farmId=${farm.id} names=${names} label=${t('events.about')} idPrefix="ev" />
      <${Field} name="at" label=${t('events.when')} type="datetime-local" ...${p} />
    </div>
    <${Field} name="notes" label=${t('events.notes')} type="textarea" ...${p} />
    <${Submit} form=${form} label=${t('events.submit')} names=${['type', 'subject_type', 'subject_id', 'at', 'data']} />
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const [filters, setFilters] = useState(() => {
    const params = new URLSearchParams(location.search);
    return { type: params.get('type') ?? '', subject_id: params.get('subject_id') ?? '' };
  });
  const names = useNames(farm.id);
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
  const chooseSubject = (choice: SubjectChoice | null) =>
    setFilters({ ...filters, subject_id: choice?.id ?? '' });
  return html`<section>
    <h1>${t('events.title')}</h1>
    <form class="filters" role="search" onSubmit=${(e: Event) => e.preventDefault()}>
      <div class="field"><label for="event-type">${t('events.filter_type')}</label>
        <select id="event-type" value=${filters.type} onChange=${(e: Event) => setFilters({ ...filters, type: inputValue(e) })}>
          <option value="">${t('events.any_type')}</option>
          ${KNOWN_EVENT_TYPES.map((k) => html`<option value=${k} selected=${filters.type === k}>${eventTypeName(k)}</option>`)}
        </select></div>
      ${names.data && html`<${SubjectPicker} farmId=${farm.id} names=${names.data} name="filter" label=${t('events.filter_subject')} idPrefix="event" onChoose=${chooseSubject} />`}
    </form>
    ${can('events', 'write') && names.data && html`<${AddEvent} farm=${farm} names=${names.data} onAdded=${events.reload} />`}
    ${
      !events.data || !names.data
        ? html`<${Loading} error=${events.error ?? names.error} retry=${() => {
            events.reload();
            names.reload();
          }} />`
        : html`<ul class="history event-log">${events.data.data.map((e) => {
            const link =
              e.subject_type === 'animal'
                ? `/animals/${e.subject_id}`
                : subjectLink(e.subject_type, e.subject_id);
            const sentence = eventSentence(e, names.data as Names);
            return html`<li key=${e.id} id=${e.id}><span class="when">${farmTime(e.at, farm.timezone)}</span>
              ${' '}${link ? html`<a href=${link} class="sentence">${sentence}</a>` : html`<span class="sentence">${sentence}</span>`}
              <details class="technical"><summary>${t('events.details')}</summary>
                <code>${e.type}</code> · <code>${e.id}</code>${e.subject_id ? html` · <code>${e.subject_id}</code>` : ''}
                <pre>${JSON.stringify(e.data, null, 2)}</pre></details></li>`;
          })}</ul>
          ${events.data.data.length === 0 && html`<p class="muted">${t('events.none')}</p>`}
          <${Pager} pager=${pager} page=${events.data} />`
    }
  </section>`;
}
