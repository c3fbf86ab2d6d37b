/** The holding register (issue 46): the movement form (409 withdrawal_active asks for a reason), the exports. */
import type { MovementReason } from '../../../../domain/movements.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, number, Submit, text, useForm } from '../form.ts';
import { nameOf, OverrideField } from '../herd-book.ts';
import { html, useState } from '../lib.ts';
import { navigate } from '../router.ts';
import { can, type Farm } from '../store.ts';
import { farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Movement = Schema<'Movement'>;

// Checked against the domain's list (a type, never served).
const REASONS = {
  sale: 'Sale',
  purchase: 'Purchase',
  slaughter: 'Slaughter',
  show: 'Show',
  agistment: 'Agistment (grazing away)',
  death: 'Death',
  other: 'Other',
} satisfies Record<MovementReason, string>;

function MovementRow({ m, timezone }: { m: Movement; timezone: string }) {
  const what = m.species ? `${m.head_count} head of ${m.species}` : `${m.head_count} head`;
  const how = [REASONS[m.reason as MovementReason] ?? m.reason, m.transporter, m.vehicle].filter(Boolean);
  return html`<li class="card" id=${m.id}>
    <div class="line"><span class=${`status ${m.direction === 'off' ? 'open' : 'done'}`}>${m.direction === 'off' ? 'Off' : 'On'}</span>
      <strong>${m.direction === 'off' ? `Off to ${m.other_holding}: ${what}` : `On from ${m.other_holding}: ${what}`}</strong></div>
    <div class="small muted">${farmTime(m.at, timezone)} · ${how.join(' · ')}</div>
    ${m.override_reason && html`<div class="small warning">Moved inside a withdrawal. Reason given: ${m.override_reason}</div>`}
  </li>`;
}

function MovementForm({
  farm,
  chosen,
  onMoved,
}: {
  farm: Farm;
  chosen: Schema<'Animal'>[];
  onMoved(): void;
}) {
  const [off, setOff] = useState(true);
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/farms/{farm}/movements'> = {
      direction: off ? 'off' : 'on',
      at: dateTime(data, 'at') ?? new Date().toISOString(),
      other_holding: text(data, 'other_holding') ?? '',
      reason: text(data, 'reason') as MovementReason,
    };
    if (chosen.length > 0) body.animal_ids = chosen.map((a) => a.id);
    else body.head_count = number(data, 'head_count') ?? 0;
    for (const name of ['species', 'transporter', 'vehicle', 'override_reason'] as const) {
      const value = text(data, name);
      if (value) body[name] = value;
    }
    const made = await api('POST', '/v1/farms/{farm}/movements', { path: { farm: farm.id }, body });
    el.reset();
    // The chosen animals have moved: the form forgets them, so they are not moved twice.
    if (chosen.length > 0) navigate('/movements', { replace: true });
    onMoved();
    return off
      ? `Recorded: ${made.head_count} head off the holding`
      : `Recorded: ${made.head_count} head onto the holding`;
  });
  const p = { error: form.error, idPrefix: 'move' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="move-title">
    <h2 id="move-title">Record a movement</h2>
    <fieldset class="checks"><legend>Direction</legend>
      <label><input type="radio" name="direction" checked=${off} onChange=${() => setOff(true)} /> Off the holding</label>
      <label><input type="radio" name="direction" checked=${!off} onChange=${() => setOff(false)} /> Onto the holding</label>
    </fieldset>
    ${
      chosen.length > 0
        ? html`<p class="chosen-animals"><strong>${chosen.length === 1 ? '1 animal' : `${chosen.length} animals`}:</strong> ${chosen.map(nameOf).join(', ')}</p>`
        : html`<div class="pair">
            <${Field} name="head_count" label="Head count" type="number" min="1" step="1" inputmode="numeric" required ...${p} />
            <${Field} name="species" label="Species" ...${p} />
          </div>
          <p class="small muted">Animals with tags: tick them on the <a href="/animals">Animals</a> list.</p>`
    }
    <div class="form-grid">
      <${Field} name="at" label="When (blank for now)" type="datetime-local" ...${p} />
      <${Field} name="other_holding" label=${off ? 'To holding (number, or name and address)' : 'From holding (number, or name and address)'} required ...${p} />
      <${Field} name="reason" label="Reason" type="select" value=${off ? 'sale' : 'purchase'} options=${Object.entries(REASONS)} ...${p} />
      <${Field} name="transporter" label="Transporter" ...${p} />
      <${Field} name="vehicle" label="Vehicle (registration)" ...${p} />
    </div>
    <${OverrideField} error=${form.error} idPrefix="move" />
    <${Submit} form=${form} label="Record movement" names=${['at', 'animal_ids', 'head_count', 'species', 'other_holding', 'reason', 'transporter', 'vehicle', 'override_reason']} />
  </form>`;
}

export function Page({ farm }: PageProps) {
  const ids = new URLSearchParams(location.search).get('animal_ids')?.split(',').filter(Boolean) ?? [];
  const data = useLoad(
    () =>
      Promise.all([
        api('GET', '/v1/farms/{farm}/movements', { path: { farm: farm.id }, query: { limit: 100 } }),
        Promise.all(ids.map((id) => api('GET', '/v1/animals/{id}', { path: { id } }))),
      ]),
    [farm.id, location.search],
  );
  useScrollToHash(data.data !== null);
  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  const [movements, chosen] = data.data;
  const link = (kind: string, label: string) =>
    html`<li><a class="button secondary" download href=${`/v1/farms/${farm.id}/${kind}/export?format=csv`}>${label}</a></li>`;
  return html`<section class="register">
    <h1>Holding register</h1>
    <p>${farm.holding ? `Holding number: ${farm.holding.number} (${farm.holding.type})` : 'No holding number recorded yet.'}</p>
    <ul class="export-list">
      ${link('holding-register', 'Holding register (CSV)')}
      ${link('medicine-record', 'Medicine record (CSV)')}
    </ul>
    ${can('animals', 'write') && html`<${MovementForm} farm=${farm} chosen=${chosen} onMoved=${data.reload} />`}
    <h2>Movements</h2>
    ${
      movements.data.length === 0
        ? html`<p class="muted">No movements recorded yet.</p>`
        : html`<ul class="cards">${movements.data.map((m) => html`<${MovementRow} key=${m.id} m=${m} timezone=${farm.timezone} />`)}</ul>`
    }
  </section>`;
}
