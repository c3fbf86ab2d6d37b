/**
 * Give a treatment (issue 46), chute-side on a phone: to one animal (from its page), to a group, or to the
 * animals chosen on the animals list (`/treat?animal_ids=a,b` or `?group_id=…`). Medicine, batch (unexpired
 * first), dose and unit, route, course, reason, who gave it, the vet and when; the answer's withdrawal dates
 * are shown as the API computed them. Without signal it is kept in the field app's queue (offline.ts) and
 * sent once, with its Idempotency-Key, when the phone is back online. An expired batch asks for a reason to
 * use it anyway.
 */
import { TREATMENT_ROUTES, type TreatmentRoute } from '../../../../domain/treatments.ts';
import { api, type Body, type Schema } from '../api.ts';
import { batchesInOrder, batchState, loadMedicines } from '../cabinet.ts';
import { dateTime, Field, number, Submit, text, useForm } from '../form.ts';
import { html, inputValue, useState } from '../lib.ts';
import { loadGroups } from '../records.ts';
import { can, signedIn } from '../store.ts';
import { farmTime, Loading, useLoad } from '../ui.ts';
import { dayOf, OverrideField, refusalText } from '../withdrawal.ts';
import type { PageProps } from './page.ts';

type Medicine = Schema<'Medicine'>;
type Treatment = Schema<'Treatment'>;
type Animal = Schema<'Animal'>;

/** How each route reads on the form. */
const ROUTE_WORDS: Record<TreatmentRoute, string> = {
  oral: 'By mouth (drench, bolus)',
  injection_im: 'Injection into the muscle (IM)',
  injection_sc: 'Injection under the skin (SC)',
  injection_iv: 'Injection into a vein (IV)',
  pour_on: 'Pour-on',
  intramammary: 'Into the udder (intramammary)',
  intrauterine: 'Into the uterus',
  topical: 'On the skin (spray, cream)',
  intranasal: 'In the nose',
  in_feed: 'In feed',
  in_water: 'In water',
  other: 'Other',
};

const NAMES = [
  'medicine_id',
  'batch_id',
  'animal_ids',
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

/** An animal's name for people. */
function nameOf(a: Pick<Animal, 'tag' | 'name' | 'id'>): string {
  return [a.tag, a.name].filter(Boolean).join(' ') || a.id;
}

/** A batch as a choice: its number, expiry and stock, expired ones said so. */
function batchChoice(batch: Schema<'MedicineBatch'>, unit: string, timezone: string): string {
  const state = batchState(batch);
  const when = dayOf(batch.expiry, timezone);
  if (state.expired) return `${batch.batch}: EXPIRED ${when}, ${batch.remaining} ${unit} left`;
  return `${batch.batch}: expires ${when}, ${batch.remaining} ${unit} left`;
}

/** Each food's end after this treatment, a line each: "Meat until Dec 22, 09:29", "Eggs: no withdrawal". */
function untilLines(until: Treatment['withdrawal_until'], timezone: string): string[] {
  return [
    until.meat ? `Meat until ${farmTime(until.meat, timezone)}` : 'Meat: no withdrawal',
    until.milk ? `Milk until ${farmTime(until.milk, timezone)}` : 'Milk: no withdrawal',
    until.eggs ? `Eggs until ${farmTime(until.eggs, timezone)}` : 'Eggs: no withdrawal',
  ];
}

/** What was given, in a sentence: "Pen & Strep, batch PS-0311: 5 ml each." */
function givenLine(t: Treatment): string {
  return t.batch
    ? `${t.medicine}, batch ${t.batch}: ${t.dose} ${t.dose_unit} each.`
    : `${t.medicine}, no batch recorded: ${t.dose} ${t.dose_unit} each.`;
}

/** What the API answered: each distinct set of withdrawal dates with the animals it applies to. */
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
  const first = treatments[0];
  return html`<div class="given" role="status">
    <h2>${treatments.length === 1 ? 'Treatment recorded' : `${treatments.length} treatments recorded`}</h2>
    ${first && html`<p>${givenLine(first)}</p>`}
    <ul>${[...byDates.values()].map(
      (
        group,
      ) => html`<li>${untilLines(group[0]?.withdrawal_until ?? { meat: null, milk: null, eggs: null }, timezone).map((line) => html`<strong class="until">${line}</strong>`)}
        <span class="small">${group.map((t) => names.get(t.animal_id) ?? t.animal_id).join(', ')}</span></li>`,
    )}</ul>
  </div>`;
}

/** Who is treated: the animals named in the URL, or a group chosen here. */
function useWho(farmId: string) {
  const params = new URLSearchParams(location.search);
  const ids = (params.get('animal_ids') ?? '').split(',').filter(Boolean);
  const group = params.get('group_id') ?? '';
  return useLoad(async () => {
    const [medicines, groups, animals] = await Promise.all([
      loadMedicines(farmId),
      loadGroups(farmId),
      Promise.all(ids.map((id) => api('GET', '/v1/animals/{id}', { path: { id } }))),
    ]);
    return { medicines, groups, animals, group };
  }, [farmId, location.search]);
}

export function Page({ farm }: PageProps) {
  const data = useWho(farm.id);
  const [medicineId, setMedicineId] = useState('');
  const [batchId, setBatchId] = useState('');
  const [result, setResult] = useState<{ treatments: Treatment[]; queued: boolean; who: string } | null>(
    null,
  );
  const medicines = data.data?.medicines ?? [];
  const medicine: Medicine | undefined = medicines.find((m) => m.id === medicineId) ?? medicines[0];
  const batches = medicine ? batchesInOrder(medicine.batches) : [];
  const batch = batches.find((b) => b.id === batchId);
  const expired = batch ? batchState(batch).expired : false;

  const form = useForm(async (form) => {
    const d = data.data;
    if (!d || !medicine) return null;
    const doses = number(form, 'course.doses');
    const every = number(form, 'course.every_hours');
    const body: Body<'POST', '/v1/farms/{farm}/treatments'> = {
      medicine_id: medicine.id,
      dose: number(form, 'dose') ?? 0,
      dose_unit: text(form, 'dose_unit') ?? medicine.unit,
      route: (text(form, 'route') ?? 'other') as TreatmentRoute,
    };
    if (d.animals.length > 0) body.animal_ids = d.animals.map((a) => a.id);
    else body.group_id = text(form, 'group_id') ?? '';
    const optional = {
      batch_id: batch?.id,
      site: text(form, 'site'),
      reason: text(form, 'reason'),
      given_by: text(form, 'given_by'),
      vet: text(form, 'vet'),
      at: dateTime(form, 'at'),
      override_reason: text(form, 'override_reason'),
    };
    for (const [name, value] of Object.entries(optional)) {
      if (value) Object.assign(body, { [name]: value });
    }
    if (doses && doses > 1) body.course = { doses, every_hours: every ?? 0 };
    const answer = (await api('POST', '/v1/farms/{farm}/treatments', { path: { farm: farm.id }, body })) as {
      data: Treatment[];
      queued?: boolean;
    };
    const group = d.groups.find((g) => g.id === body.group_id);
    const who =
      d.animals.length === 1
        ? nameOf(d.animals[0] as Animal)
        : d.animals.length > 1
          ? `${d.animals.length} animals`
          : (group?.name ?? 'the group');
    setResult({ treatments: answer.data, queued: answer.queued === true, who });
    if (!answer.queued) data.reload();
    return null;
  });

  if (!data.data) return html`<${Loading} error=${data.error} retry=${data.reload} />`;
  const { animals, groups, group } = data.data;
  const names = new Map(animals.map((a) => [a.id, nameOf(a)]));
  if (!can('animals', 'write')) {
    return html`<section><h1>Give a treatment</h1><p>Recording treatments needs a role that writes animals.</p></section>`;
  }
  if (medicines.length === 0) {
    return html`<section><h1>Give a treatment</h1>
      <p>No medicines in the cabinet yet. <a href="/medicines">Add the medicine and its batch first</a>.</p></section>`;
  }
  if (result) {
    return html`<section class="treat"><h1>Give a treatment</h1>
      ${
        result.queued
          ? html`<div class="given queued" role="status"><h2>Kept on this phone</h2>
              <p>${`${medicine?.name ?? 'The treatment'} for ${result.who} is saved here and reaches Farmstead by itself when there is signal. The withdrawal dates show once it has.`}</p>
              <p><a href="/sync">See what is waiting to sync</a></p></div>`
          : html`<${Given} treatments=${result.treatments} names=${names} timezone=${farm.timezone} />`
      }
      <p class="actions"><button type="button" class="button primary" onClick=${() => setResult(null)}>Give another</button>
        ${animals.length === 1 && html`<a class="button secondary" href=${`/animals/${animals[0]?.id}`}>Back to ${nameOf(animals[0] as Animal)}</a>`}</p>
    </section>`;
  }
  const p = { error: form.error, idPrefix: 'treat' };
  const person = signedIn().person;
  return html`<section class="treat">
    <h1>Give a treatment</h1>
    <form onSubmit=${form.onSubmit} aria-label="Give a treatment">
      ${
        animals.length > 0
          ? html`<div class="chosen-animals panel"><h2 class="small">${animals.length === 1 ? 'To 1 animal' : `To ${animals.length} animals`}</h2>
              <p>${animals.map((a) => nameOf(a)).join(', ')}</p>
              <p class="small"><a href="/animals">Choose other animals</a></p></div>`
          : html`<${Field} name="group_id" label="Group (each of its animals gets a treatment)" type="select" required value=${group}
              options=${[['', 'Choose a group'], ...groups.map((g): [string, string] => [g.id, g.name])]} ...${p} />
              <p class="small muted">For single animals: tick them on the <a href="/animals">Animals</a> list.</p>`
      }
      <div class="form-grid">
        <div class="field"><label for="treat-medicine_id">Medicine</label>
          <select id="treat-medicine_id" name="medicine_id" value=${medicine?.id} onChange=${(e: Event) => {
            setMedicineId(inputValue(e));
            setBatchId('');
          }}>${[...medicines].sort((a, b) => a.name.localeCompare(b.name)).map((m) => html`<option value=${m.id}>${m.name} (${m.unit})</option>`)}</select></div>
        <div class="field"><label for="treat-batch_id">Batch</label>
          <select id="treat-batch_id" name="batch_id" value=${batch?.id ?? ''} onChange=${(e: Event) => setBatchId(inputValue(e))}
            aria-invalid=${form.error?.param === 'batch_id' ? 'true' : undefined} aria-describedby=${form.error?.param === 'batch_id' ? 'treat-batch_id-error' : undefined}>
            <option value="">No batch recorded</option>
            ${batches.map((b) => html`<option value=${b.id}>${batchChoice(b, medicine?.unit ?? '', farm.timezone)}</option>`)}
          </select>
          ${form.error?.param === 'batch_id' && html`<p class="error" role="alert" id="treat-batch_id-error">${refusalText(form.error.message)}</p>`}
          ${expired && html`<p class="warning small">This batch has expired: give a reason to use it anyway.</p>`}</div>
        <div class="pair">
          <${Field} key=${`dose-${medicine?.id}`} name="dose" label="Dose per animal" type="number" min="0" step="any" inputmode="decimal" required ...${p} />
          <${Field} key=${`unit-${medicine?.id}`} name="dose_unit" label="Unit" value=${medicine?.unit} required ...${p} />
        </div>
        <${Field} name="route" label="Route" type="select" value="injection_im" options=${TREATMENT_ROUTES.map((r): [string, string] => [r, ROUTE_WORDS[r]])} ...${p} />
        <${Field} name="site" label="Site (e.g. left neck)" ...${p} />
        <div class="pair">
          <${Field} name="course.doses" label="Doses in the course" type="number" min="1" step="1" value="1" inputmode="numeric" ...${p} />
          <${Field} name="course.every_hours" label="Every (hours)" type="number" min="0" step="any" inputmode="decimal" ...${p} />
        </div>
        <${Field} name="reason" label="Reason or diagnosis" ...${p} />
        <${Field} name="given_by" label="Given by" value=${person.name ?? person.email} ...${p} />
        <${Field} name="vet" label="Prescribing vet" ...${p} />
        <${Field} name="at" label="When (blank for now)" type="datetime-local" ...${p} />
      </div>
      <${OverrideField} error=${form.error} needed=${expired} idPrefix="treat" label="Reason to use this batch anyway (kept with each treatment)" />
      <${Submit} form=${form} label="Give treatment" names=${NAMES} />
    </form>
  </section>`;
}
