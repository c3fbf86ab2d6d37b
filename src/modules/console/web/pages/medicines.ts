/**
 * The medicine cabinet (issue 46): the farm's medicines with their label withdrawal per food and the species
 * they are licensed for, and their batches with expiry, stock left and supplier; expired, expiring within 30
 * days and low stock said in words. Forms to add a medicine and a batch (owners and anyone who writes animals).
 */
import { api, type Body, type Schema } from '../api.ts';
import { batchesInOrder, batchState, DAY_MS, loadMedicines } from '../cabinet.ts';
import { date, Field, number, Submit, text, useForm } from '../form.ts';
import { html } from '../lib.ts';
import { can, type Farm } from '../store.ts';
import { Loading, useLoad, useScrollToHash } from '../ui.ts';
import { dayOf } from '../withdrawal.ts';
import type { PageProps } from './page.ts';

type Medicine = Schema<'Medicine'>;
type Batch = Schema<'MedicineBatch'>;
type Periods = Medicine['withdrawal'];

const UNITS = ['ml', 'g', 'tablet', 'dose', 'bolus', 'l', 'kg'];

/** One food's label period in words: "23 days", "zero (recorded)", "none on the label". */
function period(days: number | undefined): string {
  if (days === undefined) return 'none on the label';
  if (days === 0) return 'zero';
  return days === 1 ? '1 day' : `${days} days`;
}

function Periods({ periods }: { periods: Periods }) {
  return html`<dl class="facts label-periods">
    <div><dt>Meat</dt><dd>${period(periods.meat_days)}</dd></div>
    <div><dt>Milk</dt><dd>${period(periods.milk_days)}</dd></div>
    <div><dt>Eggs</dt><dd>${period(periods.eggs_days)}</dd></div>
  </dl>`;
}

function BatchRow({ batch, medicine, timezone }: { batch: Batch; medicine: Medicine; timezone: string }) {
  const state = batchState(batch);
  const kind = state.expired ? 'expired' : state.soon ? 'soon' : state.low ? 'low' : 'fine';
  const days = Math.ceil((Date.parse(batch.expiry) - Date.now()) / DAY_MS);
  const expiry = state.expired
    ? `Expired ${dayOf(batch.expiry, timezone)}`
    : state.soon
      ? `Expires ${dayOf(batch.expiry, timezone)}, in ${days === 1 ? '1 day' : `${days} days`}`
      : `Expires ${dayOf(batch.expiry, timezone)}`;
  const stock = `${batch.remaining} ${medicine.unit} left of ${batch.quantity}`;
  return html`<li class=${`batch ${kind}`} id=${batch.id}>
    <div class="batch-line"><strong>Batch ${batch.batch}</strong>
      ${state.expired && html`<span class="status expired">Expired</span>`}
      ${state.soon && html`<span class="status soon">Expires soon</span>`}
      ${state.low && html`<span class="status low">Low stock</span>`}</div>
    <div class="small">${expiry} · ${stock}${batch.supplier ? ` · from ${batch.supplier}` : ''}</div>
  </li>`;
}

function AddBatch({ medicine, onAdded }: { medicine: Medicine; onAdded(): void }) {
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/medicines/{id}/batches'> = {
      batch: text(data, 'batch') ?? '',
      expiry: date(data, 'expiry') ?? '',
      quantity: number(data, 'quantity') ?? 0,
      supplier: text(data, 'supplier'),
      purchased_at: date(data, 'purchased_at'),
      proof_of_purchase: text(data, 'proof_of_purchase'),
    };
    await api('POST', '/v1/medicines/{id}/batches', { path: { id: medicine.id }, body });
    el.reset();
    onAdded();
    return `Batch ${body.batch} added`;
  });
  const p = { error: form.error, idPrefix: `b-${medicine.id}` };
  return html`<details class="add-form"><summary>Add a batch</summary>
    <form onSubmit=${form.onSubmit} aria-label=${`Add a batch of ${medicine.name}`}>
      <div class="form-grid">
        <${Field} name="batch" label="Batch (lot) number" required ...${p} />
        <${Field} name="expiry" label="Expiry" type="date" required ...${p} />
        <${Field} name="quantity" label=${`Quantity bought (${medicine.unit})`} type="number" min="0" step="any" required ...${p} />
        <${Field} name="supplier" label="Supplier" ...${p} />
        <${Field} name="purchased_at" label="Bought on" type="date" ...${p} />
        <${Field} name="proof_of_purchase" label="Invoice or receipt number" ...${p} />
      </div>
      <${Submit} form=${form} label="Add batch" names=${['batch', 'expiry', 'quantity', 'supplier', 'purchased_at', 'proof_of_purchase']} />
    </form></details>`;
}

/** Label days as the API takes them: blank is "the label gives none" (left out), 0 is zero withdrawal. */
function periodsOf(data: FormData): Periods {
  const out: Periods = {};
  for (const food of ['meat', 'milk', 'eggs'] as const) {
    const days = number(data, `withdrawal.${food}_days`);
    if (days !== null && days !== undefined) out[`${food}_days`] = days;
  }
  return out;
}

function AddMedicine({ farm, onAdded }: { farm: Farm; onAdded(): void }) {
  const form = useForm(async (data, el) => {
    const species = (text(data, 'licensed_species') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const body: Body<'POST', '/v1/farms/{farm}/medicines'> = {
      name: text(data, 'name') ?? '',
      unit: text(data, 'unit') ?? '',
      active_ingredient: text(data, 'active_ingredient'),
      form: text(data, 'form'),
      withdrawal: periodsOf(data),
      licensed_species: species.length > 0 ? species : null,
    };
    const made = await api('POST', '/v1/farms/{farm}/medicines', { path: { farm: farm.id }, body });
    el.reset();
    onAdded();
    return `${made.name} added: add its first batch below`;
  });
  const p = { error: form.error, idPrefix: 'med' };
  return html`<details class="add-form panel"><summary>Add a medicine</summary>
    <form onSubmit=${form.onSubmit} aria-label="Add a medicine">
      <div class="form-grid">
        <${Field} name="name" label="Name" required ...${p} />
        <${Field} name="unit" label="Unit (what a dose is counted in)" list="medicine-units" required ...${p} />
        <${Field} name="active_ingredient" label="Active ingredient" ...${p} />
        <${Field} name="form" label="Form (injection, drench…)" ...${p} />
      </div>
      <fieldset class="field-rows"><legend>Withdrawal on the label, in days</legend>
        <p class="small muted">Leave blank when the label gives none for that food; 0 when it says zero.</p>
        <div class="form-grid">
          <${Field} name="withdrawal.meat_days" label="Meat (days)" type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.milk_days" label="Milk (days)" type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.eggs_days" label="Eggs (days)" type="number" min="0" step="any" ...${p} />
        </div>
      </fieldset>
      <${Field} name="licensed_species" label="Licensed for (species, comma-separated; blank: every species)" ...${p} />
      <datalist id="medicine-units">${UNITS.map((u) => html`<option value=${u} />`)}</datalist>
      <${Submit} form=${form} label="Add medicine" names=${['name', 'unit', 'active_ingredient', 'form', 'withdrawal', 'licensed_species']} />
    </form></details>`;
}

function MedicineCard({
  medicine,
  timezone,
  write,
  onChanged,
}: {
  medicine: Medicine;
  timezone: string;
  write: boolean;
  onChanged(): void;
}) {
  const licensed = medicine.licensed_species;
  const species = Object.entries(medicine.species_withdrawal ?? {});
  const batches = batchesInOrder(medicine.batches);
  return html`<li class="card medicine" id=${medicine.id}>
    <div class="card-head"><h2 class="card-title">${medicine.name}</h2><span class="muted">${medicine.unit}</span></div>
    ${(medicine.active_ingredient || medicine.form) && html`<p class="small muted">${[medicine.active_ingredient, medicine.form].filter(Boolean).join(' · ')}</p>`}
    <h3 class="small">Withdrawal on the label</h3>
    <${Periods} periods=${medicine.withdrawal} />
    ${species.map(
      ([name, periods]) =>
        html`<p class="small">For ${name}: meat ${period(periods.meat_days)}, milk ${period(periods.milk_days)}, eggs ${period(periods.eggs_days)}.</p>`,
    )}
    <p class="small">${licensed && licensed.length > 0 ? `Licensed for ${licensed.join(', ')}. Given to any other species, the cascade sets its withdrawal.` : 'Licensed for every species.'}</p>
    ${
      batches.length === 0
        ? html`<p class="muted small">No batches yet.</p>`
        : html`<ul class="batches">${batches.map((b) => html`<${BatchRow} key=${b.id} batch=${b} medicine=${medicine} timezone=${timezone} />`)}</ul>`
    }
    ${write && html`<${AddBatch} medicine=${medicine} onAdded=${onChanged} />`}
  </li>`;
}

export function Page({ farm }: PageProps) {
  const medicines = useLoad(() => loadMedicines(farm.id), [farm.id]);
  useScrollToHash(medicines.data !== null);
  if (!medicines.data) return html`<${Loading} error=${medicines.error} retry=${medicines.reload} />`;
  const write = can('animals', 'write');
  const list = [...medicines.data].sort((a, b) => a.name.localeCompare(b.name));
  return html`<section class="cabinet">
    <h1>Medicine cabinet</h1>
    <p class="actions"><a class="button secondary" href="/treat">Give a treatment</a>
      <a class="button secondary" href="/movements">Holding register</a></p>
    ${write && html`<${AddMedicine} farm=${farm} onAdded=${medicines.reload} />`}
    ${
      list.length === 0
        ? html`<p class="muted">No medicines yet. Add the ones in your cabinet, with their batches, to record treatments and their withdrawal.</p>`
        : html`<ul class="cards">${list.map((m) => html`<${MedicineCard} key=${m.id} medicine=${m} timezone=${farm.timezone} write=${write} onChanged=${medicines.reload} />`)}</ul>`
    }
  </section>`;
}
