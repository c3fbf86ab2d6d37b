/**
 * One animal: its facts (edit with every field), its history (moves, weights with a weight chart,
 * treatments and other events), its devices and their readings; its withdrawal banner (issue 46); give a
 * treatment (the herd book's form, /treat) and log a weight, birth, move, sale or note from here. A sale inside
 * the meat withdrawal is refused (409 withdrawal_active) until a reason to go ahead is given.
 */

import { displayEid } from '../../../../domain/eid.ts';
import { api, type Body, type Problem, type Schema } from '../api.ts';
import { type Series, TimeChart } from '../chart.ts';
import { Field, number, Submit, text, useForm } from '../form.ts';
import { dayOf, OverrideField, WithdrawalBanner } from '../herd-book.ts';
import { entered, shown, unitLabel } from '../i18n.ts';
import { html, useMemo, useState } from '../lib.ts';
import {
  ANIMAL_FIELD_NAMES,
  type Animal,
  AnimalFields,
  animalBody,
  choices,
  loadAll,
  type Places,
  usePlaces,
} from '../records.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { amount, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type FarmEvent = Schema<'Event'>;
type WeightEntry = Schema<'WeightEntry'>;

const SOURCES: Record<WeightEntry['source'], string> = {
  event: 'logged',
  scale: 'scale head',
  session: 'weigh session',
  chute: 'chute',
};

/** A gain in the person's units a day ("0.85 kg a day"), or a dash. */
function perDay(kg: number | null): string {
  return kg === null ? '—' : `${shown(kg, 'kg').toFixed(2)} ${unitLabel('kg')} a day`;
}

const STATES: Record<NonNullable<Animal['breeding']>['state'], string> = {
  open: 'Open',
  bred: 'Bred',
  pregnant: 'Pregnant',
  fresh: 'Fresh (given birth)',
};

/** A female's breeding state (issue 47), and the animal's pedigree: parents, grandparents, inbreeding. */
function Lineage({ animal, timezone }: { animal: Animal; timezone: string }) {
  const pedigree = useLoad(
    () =>
      api('GET', '/v1/animals/{id}/pedigree', { path: { id: animal.id }, query: { generations: 2 } }).catch(
        () => null,
      ),
    [animal.id],
  );
  const b = animal.breeding;
  const day = (d: string) => dayOf(`${d}T12:00:00Z`, timezone);
  const p = pedigree.data;
  const ancestors = p?.ancestors ?? [];
  const who = (id: string | null, fallback: string) => {
    if (!id) return fallback;
    const r = ancestors.find((a) => a.id === id);
    const name = r ? [r.tag, r.name].filter(Boolean).join(' ') || r.id : id;
    return id.startsWith('outside:')
      ? name.replace(/^outside:/, '')
      : html`<a href=${`/animals/${id}`}>${name}</a>`;
  };
  const grand = ancestors.filter((a) => a.generation === 2);
  return html`<h2 id="lineage-title">Breeding and lineage</h2>
    ${
      b &&
      html`<p class="breeding-state"><strong>${STATES[b.state]}</strong>${b.due_date ? `: due ${day(b.due_date)}.` : '.'}
        ${b.next_heat_expected && html`<br />${`Next heat expected ${day(b.next_heat_expected)}.`}`}</p>`
    }
    <dl class="facts">
      <div><dt>Dam</dt><dd>${who(animal.dam_id, '—')}</dd></div>
      <div><dt>Sire</dt><dd>${animal.sire_id ? who(animal.sire_id, '—') : animal.sire_name ? `${animal.sire_name}${animal.sire_registration ? ` (${animal.sire_registration})` : ''}` : '—'}</dd></div>
      ${grand.length > 0 && html`<div><dt>Grandparents</dt><dd>${grand.map((g, i) => html`${i > 0 ? ', ' : ''}${who(g.id, g.id)}`)}</dd></div>`}
      ${p && html`<div><dt>Inbreeding</dt><dd>${`${(p.inbreeding * 100).toFixed(2)} %`}</dd></div>`}
      ${p && p.descendants.length > 0 && html`<div><dt>Offspring</dt><dd>${p.descendants.filter((d) => d.generation === 1).map((d, i) => html`${i > 0 ? ', ' : ''}${who(d.id, d.id)}`)}</dd></div>`}
    </dl>`;
}

/** The ADG and projection above the chart, and the weights below it, newest first (issue 47). */
function WeightFigures({ weights, timezone }: { weights: Schema<'AnimalWeights'>; timezone: string }) {
  const list = weights.data as WeightEntry[];
  if (list.length === 0) return null;
  return html`<p class="weight-figures">
      ${weights.adg_kg_per_day !== null && html`<strong>${`Average daily gain ${perDay(weights.adg_kg_per_day)}`}</strong>`}
      ${weights.projected_kg !== null && html`<br />${`About ${amount(shown(weights.projected_kg, 'kg'), unitLabel('kg'))} by ${farmTime(weights.projected_at, timezone)} at the latest gain.`}`}
    </p>
    <table class="weights">
      <caption class="visually-hidden">Weights, newest first</caption>
      <thead><tr><th scope="col">When</th><th scope="col">Weight</th><th scope="col">Gain since the one before</th><th scope="col">From</th></tr></thead>
      <tbody>${list.map(
        (
          w,
        ) => html`<tr key=${w.event_id}><td>${farmTime(w.at, timezone)}</td><td>${amount(shown(w.kg, 'kg'), unitLabel('kg'))}</td>
          <td>${perDay(w.gain_kg_per_day)}</td><td>${SOURCES[w.source]}</td></tr>`,
      )}</tbody>
    </table>`;
}
/** An event's data as the kinds logged here write it. */
type EventData = Record<string, unknown> & {
  kg?: number;
  method?: string;
  to?: { group_id?: string | null; paddock_id?: string | null };
  reason?: string;
  notes?: string;
  text?: string;
};

const LOG_KINDS: [string, string][] = [
  ['weight', 'Weight'],
  ['birth', 'Birth'],
  ['move', 'Move'],
  ['sale', 'Sale'],
  ['note', 'Note'],
];

/** What an event says, in a line. */
function describeEvent(event: FarmEvent, names: Places['names']): string {
  const d: EventData = event.data ?? {};
  switch (event.type) {
    case 'weight':
      return `${amount(d.kg, 'kg')}${d.method ? ` (${d.method})` : ''}`;
    case 'move': {
      const to = d.to ?? {};
      const where = [names.get(to.group_id ?? null), names.get(to.paddock_id ?? null)]
        .filter(Boolean)
        .join(' · ');
      return `to ${where || 'no group or paddock'}${d.reason ? ` (${d.reason})` : ''}`;
    }
    case 'treatment': {
      // A treatment from the herd book names its medicine; one logged free-form, its product.
      const dose =
        d.dose === undefined ? null : `${String(d.dose)}${d.dose_unit ? ` ${String(d.dose_unit)}` : ''}`;
      return [d.medicine ?? d.product, d.batch && `batch ${String(d.batch)}`, dose, d.notes]
        .filter(Boolean)
        .map(String)
        .join(' · ');
    }
    default:
      return d.notes ?? d.text ?? (Object.keys(d).length ? JSON.stringify(d) : '');
  }
}

/** The fields of the chosen kind of log entry. */
function LogFields({ kind, places, error }: { kind: string; places: Places; error: Problem | null }) {
  const p = { error, idPrefix: 'log' };
  switch (kind) {
    case 'weight':
      // Typed in the person's units (lb or kg), stored in kg.
      return html`<${Field} name="data.kg" label=${`Weight (${unitLabel('kg')})`} type="number" step="any" min="0" required ...${p} />`;
    case 'birth':
      return html`<${Field} name="data.count" label="Born (head)" type="number" min="1" value="1" ...${p} />`;
    case 'move':
      return html`<${Field} name="group_id" label="To group" type="select" options=${choices(places.groups)} ...${p} />
        <${Field} name="paddock_id" label="To paddock" type="select" options=${choices(places.paddocks)} ...${p} />`;
    case 'sale':
      return html`<${Field} name="data.buyer" label="Buyer" ...${p} />
        <${Field} name="data.price" label="Price" type="number" step="any" min="0" ...${p} />
        <${OverrideField} error=${error} idPrefix="log" />`;
    default:
      return null;
  }
}

function LogEntry({ animal, places, onLogged }: { animal: Animal; places: Places; onLogged(): void }) {
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
    return `${LOG_KINDS.find(([k]) => k === kind)?.[1] ?? kind} logged`;
  });
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="log-title">
    <h2 id="log-title">Log something</h2>
    <div class="tabs" role="group" aria-label="What to log">
      ${kinds.map(
        ([k, label]) =>
          html`<button type="button" class="tab" aria-pressed=${kind === k} onClick=${() => setKind(k)}>${label}</button>`,
      )}
    </div>
    <div class="form-grid">
    <${LogFields} kind=${kind} places=${places} error=${form.error} />
    ${
      kind !== 'move' &&
      html`<${Field} name="notes" label="Notes" idPrefix="log" error=${form.error} />
      <${Field} name="at" label="When (blank for now)" type="datetime-local" idPrefix="log" error=${form.error} />`
    }
    </div>
    <${Submit} form=${form} label=${`Log ${kind}`} names=${['data', 'at', 'group_id', 'paddock_id', 'override_reason']} />
  </form>`;
}

function EditAnimal({ animal, places, onSaved }: { animal: Animal; places: Places; onSaved(): void }) {
  const [open, setOpen] = useState(false);
  const form = useForm(async (data) => {
    const body = animalBody(data, animal);
    if (Object.keys(body).length === 0) return 'Nothing changed';
    await api('PATCH', '/v1/animals/{id}', { path: { id: animal.id }, body });
    onSaved();
    setOpen(false);
    return 'Saved';
  });
  if (!open) {
    return html`<span class="action"><button type="button" class="button secondary" onClick=${() => setOpen(true)}>Edit</button>
      ${form.done && html`<span class="done" role="status">${form.done}</span>`}</span>`;
  }
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="edit-title">
    <h2 id="edit-title">Edit</h2>
    <${AnimalFields} animal=${animal} places=${places} error=${form.error} idPrefix="edit" />
    <${Submit} form=${form} label="Save" names=${ANIMAL_FIELD_NAMES} />
    <button type="button" class="button link" onClick=${() => setOpen(false)}>Cancel</button>
  </form>`;
}

/** A tracker's recent readings (7 days, hourly averages) as one chart per device. */
function DeviceReadings({ device }: { device: Schema<'Device'> }) {
  const since = useMemo(() => new Date(Date.now() - 7 * 86_400_000).toISOString(), [device.id]);
  const readings = useLoad(
    () =>
      api('GET', '/v1/devices/{id}/readings', {
        path: { id: device.id },
        query: { since, interval: '1h', agg: 'avg', limit: 500 },
      }),
    [device.id],
  );
  const series = useMemo(() => {
    const byMetric = new Map<string, Series & { points: Series['points'][number][] }>();
    for (const r of readings.data?.data ?? []) {
      const series = byMetric.get(r.metric) ?? { label: r.metric, unit: r.unit, points: [] };
      byMetric.set(r.metric, series);
      series.points.unshift(r);
    }
    return [...byMetric.values()].filter(
      (s) => !s.label.startsWith('gps.') && !s.label.startsWith('device.'),
    );
  }, [readings.data]);
  if (!readings.data) return html`<${Loading} error=${readings.error} retry=${readings.reload} />`;
  if (series.length === 0)
    return html`<p class="muted">No readings from ${device.name} in the last 7 days.</p>`;
  return series.map(
    (s) =>
      html`<${TimeChart} key=${s.label} series=${[s]} label=${`${device.name}: ${s.label}, last 7 days`} />`,
  );
}

export function Page({ farm, params }: PageProps) {
  const id = params.id ?? '';
  const places = usePlaces(farm.id);
  const data = useLoad(async () => {
    const [animal, events, devices] = await Promise.all([
      api('GET', '/v1/animals/{id}', { path: { id } }),
      loadAll(
        (before) =>
          api('GET', '/v1/farms/{farm}/events', {
            path: { farm: farm.id },
            query: { subject_id: id, limit: 100, before },
          }),
        300,
      ),
      api('GET', '/v1/farms/{farm}/devices', {
        path: { farm: farm.id },
        query: { animal_id: id, limit: 50 },
      }),
    ]);
    return { animal, events, devices: devices.data };
  }, [id, farm.id]);
  useFarmStream(farm.id, ['event.created'], (event) => {
    if (event.data?.subject_id === id) data.reload();
  });
  // Every weight from every source with its gain (GET /v1/animals/{id}/weights); offline, the logged ones.
  // Read once the animal's own reads are in (and again when they reload), never twice on the first load.
  const history = useLoad(
    () =>
      data.data
        ? api('GET', '/v1/animals/{id}/weights', { path: { id } }).catch(() => null)
        : Promise.resolve(null),
    [id, data.data],
  );
  const logged = useMemo(
    () =>
      (data.data?.events ?? [])
        .filter((e) => e.type === 'weight' && typeof e.data?.kg === 'number')
        .map((e) => ({ at: e.at, value: e.data.kg as number }))
        .reverse(),
    [data.data],
  );
  const fromApi = history.data?.data as WeightEntry[] | undefined;
  const weights = fromApi ? [...fromApi].reverse().map((w) => ({ at: w.at, value: w.kg })) : logged;
  if (!data.data || !places.data) {
    return html`<${Loading} error=${data.error ?? places.error} retry=${() => {
      data.reload();
      places.reload();
    }} />`;
  }
  const { animal, events, devices } = data.data;
  const names = places.data.names;
  const reload = () => data.reload();
  const title = [animal.tag, animal.name].filter(Boolean).join(' · ') || animal.eid || animal.species;
  return html`<section class="animal">
    <p><a href="/animals">← Animals</a></p>
    <div class="card-head"><h1>${title}</h1><span class=${`status ${animal.status}`}>${animal.status}</span></div>
    <${WithdrawalBanner} withdrawal=${animal.withdrawal} timezone=${farm.timezone} />
    <dl class="facts">
      <div><dt>Species</dt><dd>${animal.species}</dd></div>
      <div><dt>Breed</dt><dd>${animal.breed ?? '—'}</dd></div>
      <div><dt>Sex</dt><dd>${animal.sex ?? '—'}</dd></div>
      <div><dt>Born</dt><dd>${animal.birth_date?.slice(0, 10) ?? '—'}</dd></div>
      <div><dt>EID</dt><dd>${animal.eid === null ? '—' : displayEid(animal.eid)}${
        animal.eid !== null && animal.eid_format === 'other'
          ? html` <small class="muted">(not an ISO 11784 number: kept as typed)</small>`
          : null
      }</dd></div>
      <div><dt>Group</dt><dd>${names.get(animal.group_id) ?? '—'}</dd></div>
      <div><dt>Paddock</dt><dd>${names.get(animal.paddock_id) ?? '—'}</dd></div>
      <div><dt>Latest weight</dt><dd>${amount(weights.at(-1)?.value, 'kg')}</dd></div>
      ${Object.entries(animal.fields).map(
        ([k, v]) => html`<div><dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd></div>`,
      )}
    </dl>
    ${animal.notes && html`<p>${animal.notes}</p>`}
    ${can('animals', 'write') && html`<p><a class="button primary" href=${`/treat?animal_ids=${animal.id}`}>Give a treatment</a></p>`}
    ${can('animals', 'write') && html`<${EditAnimal} animal=${animal} places=${places.data} onSaved=${reload} />`}
    <h2 id="weight-title">Weight</h2>
    ${history.data && html`<${WeightFigures} weights=${history.data} timezone=${farm.timezone} />`}
    ${weights.length > 0 ? html`<${TimeChart} series=${[{ label: 'Weight', unit: unitLabel('kg'), points: weights.map((w) => ({ ...w, value: shown(w.value, 'kg') })) }]} label=${`Weight (${unitLabel('kg')})`} />` : html`<p class="muted">No weights logged yet.</p>`}
    <${Lineage} animal=${animal} timezone=${farm.timezone} />
    ${can('events', 'write') && html`<${LogEntry} animal=${animal} places=${places.data} onLogged=${reload} />`}
    <h2>History</h2>
    ${
      events.length === 0
        ? html`<p class="muted">Nothing logged yet.</p>`
        : html`<ul class="history">${events.map(
            (e) => html`<li key=${e.id} id=${e.id}><span class="when">${farmTime(e.at, farm.timezone)}</span>
              <strong class="what">${e.type}</strong> <span>${describeEvent(e, names)}</span></li>`,
          )}</ul>`
    }
    <h2>Devices</h2>
    ${
      devices.length === 0
        ? html`<p class="muted">No devices on this animal.</p>`
        : devices.map(
            (
              d,
            ) => html`<div class="panel" key=${d.id}><h3><a href=${`/devices/${d.id}`}>${d.name}</a> <span class="muted small">${d.type}</span></h3>
              <${DeviceReadings} device=${d} /></div>`,
          )
    }
  </section>`;
}
