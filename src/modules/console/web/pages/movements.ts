/** The holding register (issue 46): the movement form (409 withdrawal_active asks for a reason), the exports. */
import { speciesWord } from '../../../../domain/animal-terms.ts';
import type { MovementReason } from '../../../../domain/movements.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, number, SpeciesList, Submit, text, useForm } from '../form.ts';
import { OverrideField } from '../herd-book.ts';
import { nameOf } from '../herd-book-light.ts';
import { reader, withNodes, words } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { EN, ES } from '../messages/movements.ts';
import { useReader } from '../reader-hook.ts';
import { navigate } from '../router.ts';
import { can, type Farm } from '../store.ts';
import { farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Movement = Schema<'Movement'>;
type Key = keyof typeof EN;

const w = words(EN, ES);

/** A holding number's kind in words ("premises ID"), its code when the console does not know it. */
function holdingType(type: string): string {
  const key = `holding_type.${type}`;
  return key in EN ? w(key as keyof typeof EN) : type;
}

// Checked against the domain's list (a type, never served).
const REASONS = {
  sale: 'reason_sale',
  purchase: 'reason_purchase',
  slaughter: 'reason_slaughter',
  show: 'reason_show',
  agistment: 'reason_agistment',
  death: 'reason_death',
  other: 'reason_other',
} satisfies Record<MovementReason, Key>;

function MovementRow({ m, timezone }: { m: Movement; timezone: string }) {
  const what = m.species
    ? w('head_of', { count: m.head_count, species: speciesWord(reader.language, m.species) })
    : w('head', { count: m.head_count });
  const reason = REASONS[m.reason as MovementReason];
  const how = [reason ? w(reason) : m.reason, m.transporter, m.vehicle].filter(Boolean);
  return html`<li class="card" id=${m.id}>
    <div class="line"><span class=${`status ${m.direction === 'off' ? 'open' : 'done'}`}>${m.direction === 'off' ? w('off') : w('on')}</span>
      <strong>${w(m.direction === 'off' ? 'off_to' : 'on_from', { holding: m.other_holding, what })}</strong></div>
    <div class="small muted">${farmTime(m.at, timezone)} · ${how.join(' · ')}</div>
    ${m.override_reason && html`<div class="small warning">${w('inside_withdrawal', { reason: m.override_reason })}</div>`}
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
    return w(off ? 'recorded_off' : 'recorded_on', { count: made.head_count });
  });
  const p = { error: form.error, idPrefix: 'move' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="move-title">
    <h2 id="move-title">${w('record')}</h2>
    <fieldset class="checks"><legend>${w('direction')}</legend>
      <label><input type="radio" name="direction" checked=${off} onChange=${() => setOff(true)} /> ${w('off_holding')}</label>
      <label><input type="radio" name="direction" checked=${!off} onChange=${() => setOff(false)} /> ${w('onto_holding')}</label>
    </fieldset>
    ${
      chosen.length > 0
        ? html`<p class="chosen-animals"><strong>${w('chosen', { count: chosen.length })}</strong> ${chosen.map(nameOf).join(', ')}</p>`
        : html`<div class="pair">
            <${Field} name="head_count" label=${w('head_count')} type="number" min="1" step="1" inputmode="numeric" required ...${p} />
            <${Field} name="species" label=${w('species')} list="move-species" ...${p} />
          </div>
          <${SpeciesList} id="move-species" />
          <p class="small muted">${withNodes({ link: html`<a href="/animals">${w('animals_list')}</a>` }, (m) => w('tagged', m))}</p>`
    }
    <div class="form-grid">
      <${Field} name="at" label=${w('at')} type="datetime-local" ...${p} />
      <${Field} name="other_holding" label=${off ? w('to_holding') : w('from_holding')} required ...${p} />
      <${Field} name="reason" label=${w('reason')} type="select" value=${off ? 'sale' : 'purchase'} options=${Object.entries(REASONS).map(([reason, key]) => [reason, w(key)])} ...${p} />
      <${Field} name="transporter" label=${w('transporter')} ...${p} />
      <${Field} name="vehicle" label=${w('vehicle')} ...${p} />
    </div>
    <${OverrideField} error=${form.error} idPrefix="move" timezone=${farm.timezone} />
    <${Submit} form=${form} label=${w('submit')} names=${['at', 'animal_ids', 'head_count', 'species', 'other_holding', 'reason', 'transporter', 'vehicle', 'override_reason']} />
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
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
    <h1>${w('title')}</h1>
    <p>${farm.holding ? w('holding_number', { number: farm.holding.number, type: holdingType(farm.holding.type) }) : w('no_holding')}</p>
    <ul class="export-list">
      ${link('holding-register', w('export_register'))}
      ${link('medicine-record', w('export_medicines'))}
    </ul>
    ${can('animals', 'write') && html`<${MovementForm} farm=${farm} chosen=${chosen} onMoved=${data.reload} />`}
    <h2>${w('movements')}</h2>
    ${
      movements.data.length === 0
        ? html`<p class="muted">${w('none')}</p>`
        : html`<ul class="cards">${movements.data.map((m) => html`<${MovementRow} key=${m.id} m=${m} timezone=${farm.timezone} />`)}</ul>`
    }
  </section>`;
}
