/**
 * "Log something" on an animal's page: a weight, a birth, a move, a sale (which asks for a reason to go ahead
 * inside the meat withdrawal) or a note, each as the API records it (an event; a move and a sale change the
 * animal itself too).
 */
import { api, type Body, type Problem } from './api.ts';
import { Field, number, Submit, text, useForm } from './form.ts';
import { SaleOverride } from './herd-book-light.ts';
import { entered, unitLabel, words } from './i18n.ts';
import { html, useState } from './lib.ts';
import { EN, ES } from './messages/animal.ts';
import { type Animal, choices, type Places } from './records.ts';
import { can } from './store.ts';

type Key = keyof typeof EN;

const w = words(EN, ES);

/** Each kind of entry logged here: its tab, its button and what it says once logged. */
const LOG_KINDS: [string, { tab: Key; submit: Key; logged: Key }][] = [
  ['weight', { tab: 'log_weight', submit: 'submit_weight', logged: 'logged_weight' }],
  ['birth', { tab: 'log_birth', submit: 'submit_birth', logged: 'logged_birth' }],
  ['move', { tab: 'log_move', submit: 'submit_move', logged: 'logged_move' }],
  ['sale', { tab: 'log_sale', submit: 'submit_sale', logged: 'logged_sale' }],
  ['note', { tab: 'log_note', submit: 'submit_note', logged: 'logged_note' }],
];

/** The fields of the chosen kind of log entry. */
function LogFields({
  kind,
  places,
  error,
  timezone,
}: {
  kind: string;
  places: Places;
  error: Problem | null;
  timezone: string;
}) {
  const p = { error, idPrefix: 'log' };
  switch (kind) {
    case 'weight':
      // Typed in the person's units (lb or kg), stored in kg.
      return html`<${Field} name="data.kg" label=${w('weight_label', { unit: unitLabel('kg') })} type="number" step="any" min="0" required ...${p} />`;
    case 'birth':
      return html`<${Field} name="data.count" label=${w('born_head')} type="number" min="1" value="1" ...${p} />`;
    case 'move':
      return html`<${Field} name="group_id" label=${w('to_group')} type="select" options=${choices(places.groups)} ...${p} />
        <${Field} name="paddock_id" label=${w('to_paddock')} type="select" options=${choices(places.paddocks)} ...${p} />`;
    case 'sale':
      return html`<${Field} name="data.buyer" label=${w('buyer')} ...${p} />
        <${Field} name="data.price" label=${w('price')} type="number" step="any" min="0" ...${p} />
        <${SaleOverride} error=${error} timezone=${timezone} />`;
    default:
      return null;
  }
}

export function LogEntry({
  animal,
  places,
  timezone,
  onLogged,
}: {
  animal: Animal;
  places: Places;
  timezone: string;
  onLogged(): void;
}) {
  const [kind, setKind] = useState('weight');
  // Moves and sales change the animal itself, which needs animals:write (crew logs the others).
  const kinds = LOG_KINDS.filter(([k]) => !['move', 'sale'].includes(k) || can('animals', 'write'));
  const form = useForm(async (data, el) => {
    if (kind === 'move') {
      // A move is a change of group or paddock; the API logs the move event itself.
      await api('PATCH', '/v1/animals/{id}', {
        path: { id: animal.id },
        body: { group_id: text(data, 'group_id'), paddock_id: text(data, 'paddock_id') },
      });
    } else {
      const logged: Record<string, unknown> = {};
      const body: Body<'POST', '/v1/farms/{farm}/events'> = {
        type: kind,
        subject_type: 'animal',
        subject_id: animal.id,
        data: logged,
      };
      for (const [name] of data) {
        if (name.startsWith('data.')) {
          const key = name.slice(5);
          const typed = ['kg', 'count', 'price'].includes(key) ? number(data, name) : text(data, name);
          const value = key === 'kg' && typeof typed === 'number' ? entered(typed, 'kg') : typed;
          if (value !== null && value !== undefined) logged[key] = value;
        }
      }
      const notes = text(data, 'notes');
      if (notes) logged.notes = notes;
      const at = text(data, 'at');
      if (at) body.at = new Date(at).toISOString();
      // Inside the meat withdrawal the API refuses a sale (409) until a reason to go ahead is given.
      const override = text(data, 'override_reason');
      if (override) body.override_reason = override;
      await api('POST', '/v1/farms/{farm}/events', { path: { farm: animal.farm_id }, body });
      if (kind === 'sale') {
        await api('PATCH', '/v1/animals/{id}', {
          path: { id: animal.id },
          body: { status: 'sold', ...(override ? { override_reason: override } : {}) },
        });
      }
    }
    el.reset();
    onLogged();
    const logged = LOG_KINDS.find(([k]) => k === kind)?.[1].logged;
    return logged ? w(logged) : kind;
  });
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="log-title">
    <h2 id="log-title">${w('log_title')}</h2>
    <div class="tabs" role="group" aria-label=${w('what_to_log')}>
      ${kinds.map(
        ([k, label]) =>
          html`<button type="button" class="tab" aria-pressed=${kind === k} onClick=${() => setKind(k)}>${w(label.tab)}</button>`,
      )}
    </div>
    <div class="form-grid">
    <${LogFields} kind=${kind} places=${places} error=${form.error} timezone=${timezone} />
    ${
      kind !== 'move' &&
      html`<${Field} name="notes" label=${w('notes')} idPrefix="log" error=${form.error} />
      <${Field} name="at" label=${w('at')} type="datetime-local" idPrefix="log" error=${form.error} />`
    }
    </div>
    <${Submit} form=${form} label=${w(LOG_KINDS.find(([k]) => k === kind)?.[1].submit ?? 'submit_note')} names=${['data', 'at', 'group_id', 'paddock_id', 'override_reason']} />
  </form>`;
}
