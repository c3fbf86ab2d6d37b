/**
 * Give a treatment (issue 46) to animals (`?animal_ids=a,b`) or a group (`?group_id=`): the API's withdrawal
 * dates shown; offline, kept in the field app's queue and sent once (web/offline.ts).
 */
import type { TreatmentRoute } from '../../../../domain/treatments.ts';
import { api, type Body, type Schema } from '../api.ts';
import { dateTime, Field, number, Submit, text, useForm } from '../form.ts';
import {
  batchesInOrder,
  batchState,
  dayOf,
  loadMedicines,
  nameOf,
  OverrideField,
  refusalText,
} from '../herd-book.ts';
import { html, inputValue, useState } from '../lib.ts';
import { loadGroups } from '../records.ts';
import { can, signedIn } from '../store.ts';
import { farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Treatment = Schema<'Treatment'>;

// Checked against the domain's list (a type, never served): a route missing here does not compile.
const ROUTES = {
  injection_im: 'Injection, muscle (IM)',
  injection_sc: 'Injection, under the skin (SC)',
  injection_iv: 'Injection, vein (IV)',
  oral: 'Oral (drench, bolus)',
  pour_on: 'Pour-on',
  intramammary: 'Intramammary',
  intrauterine: 'Intrauterine',
  topical: 'On the skin',
  intranasal: 'Intranasal',
  in_feed: 'In feed',
  in_water: 'In water',
  other: 'Other',
} satisfies Record<TreatmentRoute, string>;

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
    u.meat ? `Meat until ${farmTime(u.meat, timezone)}` : 'Meat: no withdrawal',
    u.milk ? `Milk until ${farmTime(u.milk, timezone)}` : 'Milk: no withdrawal',
    u.eggs ? `Eggs until ${farmTime(u.eggs, timezone)}` : 'Eggs: no withdrawal',
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
    <h2>${treatments.length === 1 ? 'Treatment recorded' : `${treatments.length} treatments recorded`}</h2>
    ${t && html`<p>${t.batch ? `${t.medicine}, batch ${t.batch}: ${t.dose} ${t.dose_unit} each.` : `${t.medicine}, no batch recorded: ${t.dose} ${t.dose_unit} each.`}</p>`}
    <ul>${[...byDates.values()].map(
      (
        same,
      ) => html`<li>${untilLines(same[0]?.withdrawal_until as Treatment['withdrawal_until'], timezone).map((line) => html`<strong class="until">${line}</strong>`)}
        <span class="small">${same.every((x) => names.has(x.animal_id)) ? same.map((x) => names.get(x.animal_id)).join(', ') : `${same.length} animals`}</span></li>`,
    )}</ul>
  </div>`;
}

export function Page({ farm }: PageProps) {
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
        ? `${animals.length} animals`
        : animals[0]
          ? nameOf(animals[0])
          : (groups.find((g) => g.id === body.group_id)?.name ?? 'the group');
    setResult({ treatments: answer.data, queued: answer.queued === true, who });
    if (!answer.queued) data.reload();
    return null;
  });

  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  if (!can('animals', 'write') || !medicine) {
    return html`<section><h1>Give a treatment</h1>
      <p>${medicine ? 'Recording treatments needs a role that writes animals.' : html`No medicines in the cabinet yet: <a href="/medicines">add one and its batch first</a>.`}</p></section>`;
  }
  if (result) {
    return html`<section class="treat"><h1>Give a treatment</h1>
      ${
        result.queued
          ? html`<div class="given queued" role="status"><h2>Kept on this phone</h2>
              <p>${`${medicine.name} for ${result.who} is saved here and reaches Farmstead by itself when there is signal. The withdrawal dates show once it has.`}</p>
              <p><a href="/sync">See what is waiting to sync</a></p></div>`
          : html`<${Given} treatments=${result.treatments} names=${new Map(animals.map((a) => [a.id, nameOf(a)]))} timezone=${farm.timezone} />`
      }
      <p class="actions"><button type="button" class="button primary" onClick=${() => setResult(null)}>Give another</button>
        ${animals.length === 1 && html`<a class="button secondary" href=${`/animals/${animals[0]?.id}`}>${`Back to ${result.who}`}</a>`}</p>
    </section>`;
  }
  const p = { error: form.error, idPrefix: 'treat' };
  const person = signedIn().person;
  const batchError = form.error?.param === 'batch_id' ? form.error : null;
  return html`<section class="treat">
    <h1>Give a treatment</h1>
    <form onSubmit=${form.onSubmit} aria-label="Give a treatment">
      ${
        animals.length > 0
          ? html`<p class="chosen-animals"><strong>${animals.length === 1 ? 'To 1 animal:' : `To ${animals.length} animals:`}</strong> ${animals.map(nameOf).join(', ')}</p>`
          : html`<${Field} name="group_id" label="Group (each of its animals gets a treatment)" type="select" required value=${params.get('group_id')}
              options=${[['', 'Choose a group'], ...groups.map((g) => [g.id, g.name] as const)]} ...${p} />
              <p class="small muted">Single animals: tick them on the <a href="/animals">Animals</a> list.</p>`
      }
      <div class="form-grid">
        <div class="field"><label for="treat-medicine">Medicine</label>
          <select id="treat-medicine" value=${medicine.id} onChange=${(e: Event) => {
            setMedicineId(inputValue(e));
            setBatchId('');
          }}>${medicines.map((m) => html`<option value=${m.id}>${m.name} (${m.unit})</option>`)}</select></div>
        <div class="field"><label for="treat-batch">Batch</label>
          <select id="treat-batch" value=${batch?.id ?? ''} onChange=${(e: Event) => setBatchId(inputValue(e))}
            aria-invalid=${batchError ? 'true' : undefined} aria-describedby=${batchError ? 'treat-batch-error' : undefined}>
            <option value="">No batch recorded</option>
            ${batches.map((b) => {
              const when = dayOf(b.expiry, farm.timezone);
              return html`<option value=${b.id}>${batchState(b).expired ? `${b.batch}: EXPIRED ${when}, ${b.remaining} ${medicine.unit} left` : `${b.batch}: expires ${when}, ${b.remaining} ${medicine.unit} left`}</option>`;
            })}
          </select>
</div>
        <div class="pair">
          <${Field} key=${`d${medicine.id}`} name="dose" label="Dose per animal" type="number" min="0" step="any" inputmode="decimal" required ...${p} />
          <${Field} key=${`u${medicine.id}`} name="dose_unit" label="Unit" value=${medicine.unit} required ...${p} />
        </div>
        <${Field} name="route" label="Route" type="select" options=${Object.entries(ROUTES)} ...${p} />
        <${Field} name="site" label="Site (e.g. left neck)" ...${p} />
        <div class="pair">
          <${Field} name="course.doses" label="Doses" type="number" min="1" step="1" value="1" inputmode="numeric" ...${p} />
          <${Field} name="course.every_hours" label="Every (hours)" type="number" min="0" step="any" inputmode="decimal" ...${p} />
        </div>
        <${Field} name="reason" label="Reason or diagnosis" ...${p} />
        <${Field} name="given_by" label="Given by" value=${person.name ?? person.email} ...${p} />
        <${Field} name="vet" label="Prescribing vet" ...${p} />
        <${Field} name="at" label="When (blank for now)" type="datetime-local" ...${p} />
      </div>
      ${batchError && html`<p class="error" role="alert" id="treat-batch-error">${refusalText(batchError.message)}</p>`}
      ${!batchError && batch && batchState(batch).expired && html`<p class="warning">This batch has expired: give a reason to use it anyway.</p>`}
      <${OverrideField} error=${form.error} needed=${batch ? batchState(batch).expired : false} idPrefix="treat"
        label="Reason to use this batch anyway (kept with each treatment)" />
      <${Submit} form=${form} label="Give treatment" names=${NAMES} />
    </form>
  </section>`;
}
