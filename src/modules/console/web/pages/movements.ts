/**
 * The holding register (issue 46): the farm's holding number, the movement form (on or off, when, the
 * animals chosen on the animals list, a group's animals or a head count, the other holding, reason,
 * transporter and vehicle), the movements newest first, and the two files an inspector asks for (the
 * holding register and the medicine record, CSV or NDJSON). A move off with an animal inside its meat
 * withdrawal is refused (409 withdrawal_active) and its message shown, until a reason to go ahead is given.
 */
import {
  HOLDING_TYPES,
  type HoldingType,
  MOVEMENT_REASONS,
  type MovementReason,
} from '../../../../domain/movements.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, number, Submit, text, useForm } from '../form.ts';
import { html, inputValue, useState } from '../lib.ts';
import { loadAll, loadGroups } from '../records.ts';
import { navigate } from '../router.ts';
import { can, type Farm, loadFarms } from '../store.ts';
import { farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import { OverrideField } from '../withdrawal.ts';
import type { PageProps } from './page.ts';

type Movement = Schema<'Movement'>;
type Animal = Schema<'Animal'>;

const REASON_WORDS: Record<MovementReason, string> = {
  sale: 'Sale',
  purchase: 'Purchase',
  slaughter: 'Slaughter',
  show: 'Show',
  agistment: 'Agistment (grazing away)',
  death: 'Death',
  other: 'Other',
};

const HOLDING_WORDS: Record<HoldingType, string> = {
  cph: 'CPH (UK)',
  pic: 'PIC (Australia)',
  herd_number: 'Herd number (Ireland)',
  premises_id: 'Premises ID (US)',
  other: 'Other',
};

const NAMES = [
  'direction',
  'at',
  'animal_ids',
  'head_count',
  'species',
  'other_holding',
  'reason',
  'transporter',
  'vehicle',
  'override_reason',
];

function nameOf(a: Animal): string {
  return [a.tag, a.name].filter(Boolean).join(' ') || a.id;
}

/** A movement in two lines: what moved where, then how. */
function MovementRow({ m, timezone }: { m: Movement; timezone: string }) {
  const head = m.head_count === 1 ? '1 head' : `${m.head_count} head`;
  const what = m.species ? `${head} of ${m.species}` : head;
  const line =
    m.direction === 'off' ? `Off to ${m.other_holding}: ${what}` : `On from ${m.other_holding}: ${what}`;
  const how = [REASON_WORDS[m.reason as MovementReason] ?? m.reason, m.transporter, m.vehicle]
    .filter(Boolean)
    .join(' · ');
  return html`<li class=${`movement ${m.direction}`} id=${m.id}>
    <div class="movement-line"><span class=${`status move-${m.direction}`}>${m.direction === 'off' ? 'Off' : 'On'}</span>
      <strong>${line}</strong></div>
    <div class="small muted">${farmTime(m.at, timezone)} · ${how}</div>
    ${m.override_reason && html`<div class="small warning">Moved inside a withdrawal. Reason given: ${m.override_reason}</div>`}
  </li>`;
}

function HoldingForm({ farm }: { farm: Farm }) {
  const form = useForm(async (data) => {
    const number = text(data, 'holding.number');
    const type = (text(data, 'holding.type') ?? 'other') as HoldingType;
    await api('PATCH', '/v1/farms/{farm}', {
      path: { farm: farm.id },
      body: { holding: number ? { number, type } : null },
    });
    await loadFarms(farm.id);
    return 'Saved';
  });
  const p = { error: form.error, idPrefix: 'holding' };
  return html`<details class="add-form"><summary>${farm.holding ? 'Change the holding number' : 'Set the holding number'}</summary>
    <form onSubmit=${form.onSubmit} aria-label="Holding number">
      <div class="form-grid">
        <${Field} name="holding.number" label="Holding number" value=${farm.holding?.number} ...${p} />
        <${Field} name="holding.type" label="Kind" type="select" value=${farm.holding?.type ?? 'cph'}
          options=${HOLDING_TYPES.map((t): [string, string] => [t, HOLDING_WORDS[t]])} ...${p} />
      </div>
      <${Submit} form=${form} label="Save" names=${['holding']} />
    </form></details>`;
}

function MovementForm({
  farm,
  chosen,
  groups,
  onMoved,
}: {
  farm: Farm;
  chosen: Animal[];
  groups: Schema<'Group'>[];
  onMoved(): void;
}) {
  const [direction, setDirection] = useState<'on' | 'off'>('off');
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/farms/{farm}/movements'> = {
      direction,
      at: dateTime(data, 'at') ?? new Date().toISOString(),
      other_holding: text(data, 'other_holding') ?? '',
      reason: (text(data, 'reason') ?? 'other') as MovementReason,
    };
    const group = text(data, 'group_id');
    if (chosen.length > 0) body.animal_ids = chosen.map((a) => a.id);
    else if (group) {
      const animals = await loadAll((before) =>
        api('GET', '/v1/farms/{farm}/animals', {
          path: { farm: farm.id },
          query: { group_id: group, status: 'active', limit: 100, before },
        }),
      );
      if (animals.length === 0)
        throw Object.assign(
          new Error('That group has no active animals on record: give a head count instead.'),
          { param: 'group_id' },
        );
      body.animal_ids = animals.map((a) => a.id);
    } else {
      const count = number(data, 'head_count');
      if (count !== null && count !== undefined) body.head_count = count;
    }
    const optional = {
      species: text(data, 'species'),
      transporter: text(data, 'transporter'),
      vehicle: text(data, 'vehicle'),
      override_reason: text(data, 'override_reason'),
    };
    for (const [name, value] of Object.entries(optional)) {
      if (value) Object.assign(body, { [name]: value });
    }
    const made = await api('POST', '/v1/farms/{farm}/movements', { path: { farm: farm.id }, body });
    el.reset();
    // The animals chosen have moved: the form forgets them, so they are not moved twice.
    if (chosen.length > 0) navigate('/movements', { replace: true });
    onMoved();
    return made.direction === 'off'
      ? `Recorded: ${made.head_count} head off the holding`
      : `Recorded: ${made.head_count} head onto the holding`;
  });
  const p = { error: form.error, idPrefix: 'move' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="move-title">
    <h2 id="move-title">Record a movement</h2>
    <fieldset class="choice-row"><legend>Direction</legend>
      <label class="check"><input type="radio" name="direction" value="off" checked=${direction === 'off'} onChange=${(e: Event) => setDirection(inputValue(e) as 'off')} /> Off the holding</label>
      <label class="check"><input type="radio" name="direction" value="on" checked=${direction === 'on'} onChange=${(e: Event) => setDirection(inputValue(e) as 'on')} /> Onto the holding</label>
    </fieldset>
    ${
      chosen.length > 0
        ? html`<div class="chosen-animals"><p><strong>${chosen.length === 1 ? '1 animal' : `${chosen.length} animals`}:</strong> ${chosen.map(nameOf).join(', ')}</p>
            <p class="small"><a href="/movements">Record a group or a head count instead</a></p></div>`
        : html`<div class="form-grid">
            <${Field} name="group_id" label="A group's animals" type="select" options=${[['', 'None: a head count'], ...groups.map((g): [string, string] => [g.id, g.name])]} ...${p} />
            <${Field} name="head_count" label="Or a head count" type="number" min="1" step="1" inputmode="numeric" ...${p} />
            <${Field} name="species" label="Species (for a head count)" ...${p} />
          </div>
          <p class="small muted">For single animals: tick them on the <a href="/animals">Animals</a> list.</p>`
    }
    <div class="form-grid">
      <${Field} name="at" label="When (blank for now)" type="datetime-local" ...${p} />
      <${Field} name="other_holding" label=${direction === 'off' ? 'To holding (number, or name and address)' : 'From holding (number, or name and address)'} required ...${p} />
      <${Field} name="reason" label="Reason" type="select" value=${direction === 'off' ? 'sale' : 'purchase'} options=${MOVEMENT_REASONS.map((r): [string, string] => [r, REASON_WORDS[r]])} ...${p} />
      <${Field} name="transporter" label="Transporter" ...${p} />
      <${Field} name="vehicle" label="Vehicle (registration)" ...${p} />
    </div>
    <${OverrideField} error=${form.error} idPrefix="move" />
    <${Submit} form=${form} label="Record movement" names=${NAMES} />
  </form>`;
}

export function Page({ farm }: PageProps) {
  const ids = new URLSearchParams(location.search).get('animal_ids')?.split(',').filter(Boolean) ?? [];
  const data = useLoad(async () => {
    const [movements, groups, chosen] = await Promise.all([
      api('GET', '/v1/farms/{farm}/movements', { path: { farm: farm.id }, query: { limit: 100 } }),
      loadGroups(farm.id),
      Promise.all(ids.map((id) => api('GET', '/v1/animals/{id}', { path: { id } }))),
    ]);
    return { movements: movements.data, groups, chosen };
  }, [farm.id, location.search]);
  useScrollToHash(data.data !== null);
  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  const { movements, groups, chosen } = data.data;
  const exports = (kind: string, label: string) =>
    html`<li><strong>${label}</strong>
      <a class="button secondary" download href=${`/v1/farms/${farm.id}/${kind}/export?format=csv`}>CSV</a>
      <a class="button secondary" download href=${`/v1/farms/${farm.id}/${kind}/export?format=ndjson`}>NDJSON</a></li>`;
  return html`<section class="register">
    <h1>Holding register</h1>
    ${
      farm.holding
        ? html`<p>Holding number: <strong>${farm.holding.number}</strong> <span class="muted">${HOLDING_WORDS[farm.holding.type as HoldingType] ?? farm.holding.type}</span></p>`
        : html`<p>No holding number recorded yet.</p>`
    }
    ${can('farms', 'write') && html`<${HoldingForm} farm=${farm} />`}
    <h2>For an inspector or a vet</h2>
    <ul class="export-list">
      ${exports('holding-register', 'Holding register (movements, births, deaths)')}
      ${exports('medicine-record', 'Medicine record (every treatment)')}
    </ul>
    ${can('animals', 'write') && html`<${MovementForm} farm=${farm} chosen=${chosen} groups=${groups} onMoved=${data.reload} />`}
    <h2>Movements</h2>
    ${
      movements.length === 0
        ? html`<p class="muted">No movements recorded yet.</p>`
        : html`<ul class="movements">${movements.map((m) => html`<${MovementRow} key=${m.id} m=${m} timezone=${farm.timezone} />`)}</ul>`
    }
  </section>`;
}
