/**
 * Give a treatment (issue 46) to animals (`?animal_ids=a,b`) or a group (`?group_id=`): the API's withdrawal
 * dates shown; offline, kept in the field app's queue and sent once (web/offline.ts).
 */
import type { TreatmentRoute } from '../../../../domain/treatments.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, number, Submit, text, useForm } from '../form.ts';
import { batchesInOrder, batchState, loadMedicines, OverrideField, refusalText } from '../herd-book.ts';
import { nameOf } from '../herd-book-light.ts';
import { dayOf, num, withNodes, words } from '../i18n.ts';
import { html, inputValue, useState } from '../lib.ts';
import { EN, ES } from '../messages/treat.ts';
import { useReader } from '../reader-hook.ts';
import { loadGroups } from '../records.ts';
import { can, signedIn } from '../store.ts';
import { ErrorText, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Treatment = Schema<'Treatment'>;
type Key = keyof typeof EN;

const w = words(EN, ES);

// Checked against the domain's list (a type, never served): a route missing here does not compile.
const ROUTES = {
  injection_im: 'route_injection_im',
  injection_sc: 'route_injection_sc',
  injection_iv: 'route_injection_iv',
  oral: 'route_oral',
  pour_on: 'route_pour_on',
  intramammary: 'route_intramammary',
  intrauterine: 'route_intrauterine',
  topical: 'route_topical',
  intranasal: 'route_intranasal',
  in_feed: 'route_in_feed',
  in_water: 'route_in_water',
  other: 'route_other',
} satisfies Record<TreatmentRoute, Key>;

const NAMES = [
  'batch_id',
  'group_id',
  'dose',
  'dose_unit',
  'route',
  'site',
  'course',
  'reason',
  'given_by',
  'vet',
  'at',
  'override_reason',
];

function untilLines(u: Treatment['withdrawal_until'], timezone: string): string[] {
  return [
    u.meat ? w('meat_until', { when: farmTime(u.meat, timezone) }) : w('meat_none'),
    u.milk ? w('milk_until', { when: farmTime(u.milk, timezone) }) : w('milk_none'),
    u.eggs ? w('eggs_until', { when: farmTime(u.eggs, timezone) }) : w('eggs_none'),
  ];
}

/** Each distinct set of withdrawal dates (an organic animal's differ), and for whom. */
function Given({
  treatments,
  names,
  timezone,
}: {
  treatments: Treatment[];
  names: Map<string, string>;
  timezone: string;
}) {
  const byDates = new Map<string, Treatment[]>();
  for (const t of treatments) {
    const key = JSON.stringify(t.withdrawal_until);
    byDates.set(key, [...(byDates.get(key) ?? []), t]);
  }
  const t = treatments[0];
  return html`<div class="given" role="status">
    <h2>${w('recorded', { count: treatments.length })}</h2>
    ${t && html`<p>${w(t.batch ? 'given_batch' : 'given_no_batch', { medicine: t.medicine, batch: t.batch, dose: t.dose, unit: t.dose_unit })}</p>`}
    <ul>${[...byDates.values()].map(
      (
        same,
      ) => html`<li>${untilLines(same[0]?.withdrawal_until as Treatment['withdrawal_until'], timezone).map((line) => html`<strong class="until">${line}</strong>`)}
        <span class="small">${same.every((x) => names.has(x.animal_id)) ? same.map((x) => names.get(x.animal_id)).join(', ') : w('animals', { count: same.length })}</span></li>`,
    )}</ul>
  </div>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const params = new URLSearchParams(location.search);
  const ids = params.get('animal_ids')?.split(',').filter(Boolean) ?? [];
  const data = useLoad(
    () =>
      Promise.all([
        loadMedicines(farm.id),
        loadGroups(farm.id),
        Promise.all(ids.map((id) => api('GET', '/v1/animals/{id}', { path: { id } }))),
      ]),
    [farm.id, location.search],
  );
  const [medicineId, setMedicineId] = useState('');
  const [batchId, setBatchId] = useState('');
  const [result, setResult] = useState<{ treatments: Treatment[]; queued: boolean; who: string } | null>(
    null,
  );
  const [medicines = [], groups = [], animals = []] = data.data ?? [];
  const medicine = medicines.find((m) => m.id === medicineId) ?? medicines[0];
  const batches = medicine ? batchesInOrder(medicine.batches) : [];
  const batch = batches.find((b) => b.id === batchId);

  const form = useForm(async (form) => {
    if (!medicine) return null;
    const body: Body<'POST', '/v1/farms/{farm}/treatments'> = {
      medicine_id: medicine.id,
      dose: number(form, 'dose') ?? 0,
      dose_unit: text(form, 'dose_unit') ?? medicine.unit,
      route: text(form, 'route') as TreatmentRoute,
    };
    if (animals.length > 0) body.animal_ids = animals.map((a) => a.id);
    else body.group_id = text(form, 'group_id') ?? '';
    if (batch) body.batch_id = batch.id;
    for (const name of ['site', 'reason', 'given_by', 'vet', 'override_reason'] as const) {
      const value = text(form, name);
      if (value) body[name] = value;
    }
    const at = dateTime(form, 'at');
    if (at) body.at = at;
    const doses = number(form, 'course.doses') ?? 1;
    if (doses > 1) body.course = { doses, every_hours: number(form, 'course.every_hours') ?? 0 };
    // Offline, the queue answers `queued` (web/offline-changes.ts).
    const answer = (await api('POST', '/v1/farms/{farm}/treatments', { path: { farm: farm.id }, body })) as {
      data: Treatment[];
      queued?: boolean;
    };
    const who =
      animals.length > 1
        ? w('animals', { count: animals.length })
        : animals[0]
          ? nameOf(animals[0])
          : (groups.find((g) => g.id === body.group_id)?.name ?? w('the_group'));
    setResult({ treatments: answer.data, queued: answer.queued === true, who });
    if (!answer.queued) data.reload();
    return null;
  });

  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  if (!can('animals', 'write') || !medicine) {
    return html`<section><h1>${w('title')}</h1>
      <p>${medicine ? w('needs_role') : withNodes({ link: html`<a href="/medicines">${w('add_medicine')}</a>` }, (m) => w('no_medicines', m))}</p></section>`;
  }
  if (result) {
    return html`<section class="treat"><h1>${w('title')}</h1>
      ${
        result.queued
          ? html`<div class="given queued" role="status"><h2>${w('kept')}</h2>
              <p>${w('kept_text', { medicine: medicine.name, who: result.who })}</p>
              <p><a href="/sync">${w('waiting')}</a></p></div>`
          : html`<${Given} treatments=${result.treatments} names=${new Map(animals.map((a) => [a.id, nameOf(a)]))} timezone=${farm.timezone} />`
      }
      <p class="actions"><button type="button" class="button primary" onClick=${() => setResult(null)}>${w('another')}</button>
        ${animals.length === 1 && html`<a class="button secondary" href=${`/animals/${animals[0]?.id}`}>${w('back_to', { name: result.who })}</a>`}</p>
    </section>`;
  }
  const p = { error: form.error, idPrefix: 'treat' };
  const person = signedIn().person;
  const batchError = form.error?.param === 'batch_id' ? form.error : null;
  return html`<section class="treat">
    <h1>${w('title')}</h1>
    <form onSubmit=${form.onSubmit} aria-label=${w('title')}>
      ${
        animals.length > 0
          ? html`<p class="chosen-animals"><strong>${w('to_animals', { count: animals.length })}</strong> ${animals.map(nameOf).join(', ')}</p>`
          : html`<${Field} name="group_id" label=${w('group')} type="select" required value=${params.get('group_id')}
              options=${[['', w('choose_group')], ...groups.map((g) => [g.id, g.name] as const)]} ...${p} />
              <p class="small muted">${withNodes({ link: html`<a href="/animals">${w('animals_list')}</a>` }, (m) => w('single', m))}</p>`
      }
      <div class="form-grid">
        <div class="field"><label for="treat-medicine">${w('medicine')}</label>
          <select id="treat-medicine" value=${medicine.id} onChange=${(e: Event) => {
            setMedicineId(inputValue(e));
            setBatchId('');
          }}>${medicines.map((m) => html`<option value=${m.id}>${m.name} (${m.unit})</option>`)}</select></div>
        <div class="field"><label for="treat-batch">${w('batch')}</label>
          <select id="treat-batch" value=${batch?.id ?? ''} onChange=${(e: Event) => setBatchId(inputValue(e))}
            aria-invalid=${batchError ? 'true' : undefined} aria-describedby=${batchError ? 'treat-batch-error' : undefined}>
            <option value="">${w('no_batch')}</option>
            ${batches.map((b) => {
              const when = dayOf(b.expiry, farm.timezone);
              return html`<option value=${b.id}>${w(batchState(b).expired ? 'batch_expired' : 'batch_expires', { batch: b.batch, when, remaining: num(b.remaining, 2), unit: medicine.unit })}</option>`;
            })}
          </select>
</div>
        <div class="pair">
          <${Field} key=${`d${medicine.id}`} name="dose" label=${w('dose')} type="number" min="0" step="any" inputmode="decimal" required ...${p} />
          <${Field} key=${`u${medicine.id}`} name="dose_unit" label=${w('unit')} value=${medicine.unit} required ...${p} />
        </div>
        <${Field} name="route" label=${w('route')} type="select" options=${Object.entries(ROUTES).map(([route, key]) => [route, w(key)])} ...${p} />
        <${Field} name="site" label=${w('site')} ...${p} />
        <div class="pair">
          <${Field} name="course.doses" label=${w('doses')} type="number" min="1" step="1" value="1" inputmode="numeric" ...${p} />
          <${Field} name="course.every_hours" label=${w('every')} type="number" min="0" step="any" inputmode="decimal" ...${p} />
        </div>
        <${Field} name="reason" label=${w('reason')} ...${p} />
        <${Field} name="given_by" label=${w('given_by')} value=${person.name ?? person.email} ...${p} />
        <${Field} name="vet" label=${w('vet')} ...${p} />
        <${Field} name="at" label=${w('at')} type="datetime-local" ...${p} />
      </div>
      <${ErrorText} error=${batchError} id="treat-batch-error" label=${w('batch')} text=${batchError && refusalText(batchError.message, farm.timezone)} />
      ${!batchError && batch && batchState(batch).expired && html`<p class="warning">${w('expired_warning')}</p>`}
      <${OverrideField} error=${form.error} needed=${batch ? batchState(batch).expired : false} idPrefix="treat"
        label=${w('override')} timezone=${farm.timezone} />
      <${Submit} form=${form} label=${w('submit')} names=${NAMES} />
    </form>
  </section>`;
}
