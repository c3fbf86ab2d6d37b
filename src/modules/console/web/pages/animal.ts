/**
 * One animal: its facts (edit with every field), its history (moves, weights with a weight chart,
 * treatments and other events), its devices and their readings; its withdrawal banner (issue 46); give a
 * treatment (the herd book's form, /treat) and log a weight, birth, move, sale or note from here (the form is
 * web/animal-log.ts). A sale inside the meat withdrawal is refused (409 withdrawal_active) until a reason to go
 * ahead is given.
 */

import { sexWord, speciesWord } from '../../../../domain/animal-terms.ts';
import { displayEid } from '../../../../domain/eid.ts';
import { LogEntry } from '../animal-log.ts';
import { api, type Schema } from '../api.ts';
import { type Series, TimeChart } from '../chart.ts';
import { typeName } from '../device-type.ts';
import { eventTypeName } from '../event-types.ts';
import { Submit, useForm } from '../form.ts';
import { Withdrawal } from '../herd-book-light.ts';
import { dateOf, dayOf, fixed, reader, t, unitLabel, words } from '../i18n.ts';
import { html, useMemo, useState } from '../lib.ts';
import { EN, ES } from '../messages/animal.ts';
import { useReader } from '../reader-hook.ts';
import {
  ANIMAL_FIELD_NAMES,
  type Animal,
  AnimalFields,
  animalBody,
  gainWeight,
  loadAll,
  type Places,
  statusWord,
  usePlaces,
} from '../records.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { amount, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type FarmEvent = Schema<'Event'>;
type WeightEntry = Schema<'WeightEntry'>;
type Key = keyof typeof EN;

const w = words(EN, ES);

const SOURCES: Record<WeightEntry['source'], Key> = {
  event: 'source_event',
  scale: 'source_scale',
  session: 'source_session',
  chute: 'source_chute',
  birth: 'source_birth',
};

/** A gain in the person's units a day ("0.85 kg a day"), or a dash. */
function perDay(kg: number | null): string {
  return kg === null ? '—' : w('per_day', { weight: gainWeight(kg) });
}

const STATES: Record<NonNullable<Animal['breeding']>['state'], Key> = {
  open: 'state_open',
  bred: 'state_bred',
  pregnant: 'state_pregnant',
  fresh: 'state_fresh',
};

/** A female's breeding state (issue 47), and the animal's pedigree: parents, grandparents, inbreeding. */
function Lineage({ animal }: { animal: Animal }) {
  const pedigree = useLoad(
    () =>
      api('GET', '/v1/animals/{id}/pedigree', { path: { id: animal.id }, query: { generations: 2 } }).catch(
        () => null,
      ),
    [animal.id],
  );
  const b = animal.breeding;
  const day = (d: string) => dayOf(`${d}T12:00:00Z`, 'UTC');
  const p = pedigree.data;
  const ancestors = p?.ancestors ?? [];
  // Relatives by their tag and name, never by id: ancestors and descendants both come with them.
  const relatives = [...ancestors, ...(p?.descendants ?? [])];
  const who = (id: string | null, fallback: string) => {
    if (!id) return fallback;
    const r = relatives.find((a) => a.id === id);
    const name = r ? [r.tag, r.name].filter(Boolean).join(' ') || r.id : id;
    return id.startsWith('outside:')
      ? name.replace(/^outside:/, '')
      : html`<a href=${`/animals/${id}`}>${name}</a>`;
  };
  const grand = ancestors.filter((a) => a.generation === 2);
  return html`<h2 id="lineage-title">${w('lineage')}</h2>
    ${
      b &&
      html`<p class="breeding-state"><strong>${
        b.due_date
          ? w('state_due', { state: w(STATES[b.state]), day: day(b.due_date) })
          : w('state_alone', { state: w(STATES[b.state]) })
      }</strong>
        ${b.next_heat_expected && html`<br />${w('next_heat', { day: day(b.next_heat_expected) })}`}</p>`
    }
    <dl class="facts">
      <div><dt>${w('dam')}</dt><dd>${who(animal.dam_id, '—')}</dd></div>
      <div><dt>${w('sire')}</dt><dd>${animal.sire_id ? who(animal.sire_id, '—') : animal.sire_name ? (animal.sire_registration ? w('sire_registered', { name: animal.sire_name, registration: animal.sire_registration }) : animal.sire_name) : '—'}</dd></div>
      ${grand.length > 0 && html`<div><dt>${w('grandparents')}</dt><dd>${grand.map((g, i) => html`${i > 0 ? ', ' : ''}${who(g.id, g.id)}`)}</dd></div>`}
      ${p && html`<div><dt>${w('inbreeding')}</dt><dd>${w('inbreeding_value', { percent: fixed(p.inbreeding * 100) })}</dd></div>`}
      ${p && p.descendants.length > 0 && html`<div><dt>${w('offspring')}</dt><dd>${p.descendants.filter((d) => d.generation === 1).map((d, i) => html`${i > 0 ? ', ' : ''}${who(d.id, d.id)}`)}</dd></div>`}
    </dl>`;
}

/** The ADG and projection above the chart, and the weights below it, newest first (issue 47). */
function WeightFigures({ weights, timezone }: { weights: Schema<'AnimalWeights'>; timezone: string }) {
  const list = weights.data as WeightEntry[];
  if (list.length === 0) return null;
  return html`<p class="weight-figures">
      ${weights.adg_kg_per_day !== null && html`<strong>${w('adg', { gain: perDay(weights.adg_kg_per_day) })}</strong>`}
      ${weights.projected_kg !== null && html`<br />${w('projected', { weight: amount(weights.projected_kg, 'kg'), when: farmTime(weights.projected_at, timezone) })}`}
    </p>
    <table class="weights">
      <caption class="visually-hidden">${w('weights_caption')}</caption>
      <thead><tr><th scope="col">${w('when')}</th><th scope="col">${w('weight')}</th><th scope="col">${w('gain')}</th><th scope="col">${w('from')}</th></tr></thead>
      <tbody>${list.map(
        (
          entry,
        ) => html`<tr key=${entry.event_id}><td>${farmTime(entry.at, timezone)}</td><td>${amount(entry.kg, 'kg')}</td>
          <td>${perDay(entry.gain_kg_per_day)}</td><td>${w(SOURCES[entry.source])}</td></tr>`,
      )}</tbody>
    </table>`;
}
/** An event's data as the kinds logged here write it. */
type EventData = Record<string, unknown> & {
  kg?: number;
  to?: { group_id?: string | null; paddock_id?: string | null };
  reason?: string;
  notes?: string;
  text?: string;
};

/** What an event says, in a line (a weight's source as the weights table says it). */
function describeEvent(event: FarmEvent, names: Places['names'], source?: WeightEntry['source']): string {
  const d: EventData = event.data ?? {};
  switch (event.type) {
    case 'weight':
      return `${amount(d.kg, 'kg')}${source && source !== 'event' ? ` · ${w(SOURCES[source])}` : ''}`;
    case 'move': {
      const to = d.to ?? {};
      const where = [names.get(to.group_id ?? null), names.get(to.paddock_id ?? null)]
        .filter(Boolean)
        .join(' · ');
      const place = where || t('sentence.nowhere');
      return d.reason
        ? w('moved_to_because', { where: place, reason: d.reason })
        : w('moved_to', { where: place });
    }
    case 'treatment': {
      // A treatment from the herd book names its medicine; one logged free-form, its product.
      const dose =
        d.dose === undefined ? null : `${String(d.dose)}${d.dose_unit ? ` ${String(d.dose_unit)}` : ''}`;
      return [d.medicine ?? d.product, d.batch && w('batch', { batch: String(d.batch) }), dose, d.notes]
        .filter(Boolean)
        .map(String)
        .join(' · ');
    }
    default:
      return d.notes ?? d.text ?? (Object.keys(d).length ? JSON.stringify(d) : '');
  }
}

function EditAnimal({ animal, places, onSaved }: { animal: Animal; places: Places; onSaved(): void }) {
  const [open, setOpen] = useState(false);
  const form = useForm(async (data) => {
    const body = animalBody(data, animal);
    if (Object.keys(body).length === 0) return w('nothing_changed');
    await api('PATCH', '/v1/animals/{id}', { path: { id: animal.id }, body });
    onSaved();
    setOpen(false);
    return w('saved');
  });
  if (!open) {
    return html`<span class="action"><button type="button" class="button secondary" onClick=${() => setOpen(true)}>${w('edit')}</button>
      ${form.done && html`<span class="done" role="status">${form.done}</span>`}</span>`;
  }
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="edit-title">
    <h2 id="edit-title">${w('edit')}</h2>
    <${AnimalFields} animal=${animal} places=${places} error=${form.error} idPrefix="edit" />
    <${Submit} form=${form} label=${w('save')} names=${ANIMAL_FIELD_NAMES} />
    <button type="button" class="button link" onClick=${() => setOpen(false)}>${w('cancel')}</button>
  </form>`;
}

/**
 * A tracker's recent readings (7 days, hourly averages) as one chart per metric, named in the reader's words.
 * The metrics' names load with the readings: most animals wear no tracker, and their page stays lighter.
 */
function DeviceReadings({ device, timezone }: { device: Schema<'Device'>; timezone: string }) {
  const since = useMemo(() => new Date(Date.now() - 7 * 86_400_000).toISOString(), [device.id]);
  const readings = useLoad(async () => {
    const [read, terms] = await Promise.all([
      api('GET', '/v1/devices/{id}/readings', {
        path: { id: device.id },
        query: { since, interval: '1h', agg: 'avg', limit: 500 },
      }),
      import('../../../../domain/metric-terms.ts'),
    ]);
    return { ...read, metricTerm: terms.metricTerm };
  }, [device.id]);
  const series = useMemo(() => {
    const byMetric = new Map<string, Series & { points: Series['points'][number][] }>();
    const read = readings.data;
    for (const r of read?.data ?? []) {
      if (r.metric.startsWith('gps.') || r.metric.startsWith('device.')) continue;
      const series = byMetric.get(r.metric) ?? {
        label: read?.metricTerm(reader.language, r.metric) ?? r.metric,
        unit: r.unit,
        points: [],
      };
      byMetric.set(r.metric, series);
      series.points.unshift(r);
    }
    return [...byMetric.entries()];
  }, [readings.data, reader.language]);
  if (!readings.data) return html`<${Loading} error=${readings.error} retry=${readings.reload} />`;
  if (series.length === 0) return html`<p class="muted">${w('no_readings', { device: device.name })}</p>`;
  return series.map(
    ([metric, s]) =>
      html`<${TimeChart} key=${metric} series=${[s]} timezone=${timezone} label=${w('chart_label', { device: device.name, metric: s.label })} />`,
  );
}

export function Page({ farm, params }: PageProps) {
  useReader();
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
  const sources = new Map(fromApi?.map((w) => [w.event_id, w.source]));
  if (!data.data || !places.data) {
    return html`<${Loading} error=${data.error ?? places.error} retry=${() => {
      data.reload();
      places.reload();
    }} />`;
  }
  const { animal, events, devices } = data.data;
  const names = places.data.names;
  const reload = () => data.reload();
  const title =
    [animal.tag, animal.name].filter(Boolean).join(' · ') ||
    animal.eid ||
    speciesWord(reader.language, animal.species);
  return html`<section class="animal">
    <p><a href="/animals">${w('back')}</a></p>
    <div class="card-head"><h1>${title}</h1><span class=${`status ${animal.status}`}>${statusWord(animal.status)}</span></div>
    <${Withdrawal} animal=${animal} timezone=${farm.timezone} />
    <dl class="facts">
      <div><dt>${w('species')}</dt><dd>${speciesWord(reader.language, animal.species)}</dd></div>
      <div><dt>${w('breed')}</dt><dd>${animal.breed ?? '—'}</dd></div>
      <div><dt>${w('sex')}</dt><dd>${animal.sex ? sexWord(reader.language, animal.sex) : '—'}</dd></div>
      <div><dt>${w('born')}</dt><dd>${animal.birth_date ? dateOf(animal.birth_date) : '—'}</dd></div>
      <div><dt>${w('eid')}</dt><dd>${animal.eid === null ? '—' : displayEid(animal.eid)}${
        animal.eid !== null && animal.eid_format === 'other'
          ? html` <small class="muted">${w('eid_other')}</small>`
          : null
      }</dd></div>
      <div><dt>${w('group')}</dt><dd>${names.get(animal.group_id) ?? '—'}</dd></div>
      <div><dt>${w('paddock')}</dt><dd>${names.get(animal.paddock_id) ?? '—'}</dd></div>
      <div><dt>${w('latest_weight')}</dt><dd>${amount(weights.at(-1)?.value, 'kg')}</dd></div>
      ${Object.entries(animal.fields).map(
        ([k, v]) => html`<div><dt>${k}</dt><dd>${typeof v === 'string' ? v : JSON.stringify(v)}</dd></div>`,
      )}
    </dl>
    ${animal.notes && html`<p>${animal.notes}</p>`}
    ${can('animals', 'write') && html`<p><a class="button primary" href=${`/treat?animal_ids=${animal.id}`}>${w('treat')}</a></p>`}
    ${can('animals', 'write') && html`<${EditAnimal} animal=${animal} places=${places.data} onSaved=${reload} />`}
    <h2 id="weight-title">${w('weight')}</h2>
    ${history.data && html`<${WeightFigures} weights=${history.data} timezone=${farm.timezone} />`}
    ${weights.length > 0 ? html`<${TimeChart} series=${[{ label: w('weight'), unit: 'kg', points: weights }]} timezone=${farm.timezone} label=${w('weight_label', { unit: unitLabel('kg') })} />` : html`<p class="muted">${w('no_weights')}</p>`}
    <${Lineage} animal=${animal} />
    ${can('events', 'write') && html`<${LogEntry} animal=${animal} places=${places.data} timezone=${farm.timezone} onLogged=${reload} />`}
    <h2>${w('history')}</h2>
    ${
      events.length === 0
        ? html`<p class="muted">${w('nothing_logged')}</p>`
        : html`<ul class="history">${events.map(
            (e) => html`<li key=${e.id} id=${e.id}><span class="when">${farmTime(e.at, farm.timezone)}</span>
              <strong class="what">${eventTypeName(e.type)}</strong> <span>${describeEvent(e, names, sources.get(e.id))}</span></li>`,
          )}</ul>`
    }
    <h2>${w('devices')}</h2>
    ${
      devices.length === 0
        ? html`<p class="muted">${w('no_devices')}</p>`
        : devices.map(
            (
              d,
            ) => html`<div class="panel" key=${d.id}><h3><a href=${`/devices/${d.id}`}>${d.name}</a> <span class="muted small">${typeName(d.type)}</span></h3>
              <${DeviceReadings} device=${d} timezone=${farm.timezone} /></div>`,
          )
    }
  </section>`;
}
