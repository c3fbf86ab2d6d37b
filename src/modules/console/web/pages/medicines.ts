/** The medicine cabinet (issue 46): medicines, their labels and batches; add a medicine or a batch. */
import { api, type Body, type Schema } from '../api.ts';
import { date, Field, number, Submit, text, useForm } from '../form.ts';
import { batchesInOrder, batchState, DAY_MS, dayOf, loadMedicines } from '../herd-book.ts';
import { html } from '../lib.ts';
import { can, type Farm } from '../store.ts';
import { Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Medicine = Schema<'Medicine'>;
type Batch = Schema<'MedicineBatch'>;
type Periods = Medicine['withdrawal'];

const FOODS = { meat: 'Meat', milk: 'Milk', eggs: 'Eggs' } as const;

function period(days: number | undefined): string {
  return days === undefined
    ? 'none on the label'
    : days === 0
      ? 'zero'
      : days === 1
        ? '1 day'
        : `${days} days`;
}

function BatchRow({ batch, unit, timezone }: { batch: Batch; unit: string; timezone: string }) {
  const s = batchState(batch);
  const when = dayOf(batch.expiry, timezone);
  const days = Math.ceil((Date.parse(batch.expiry) - Date.now()) / DAY_MS);
  const expiry = s.expired
    ? `Expired ${when}`
    : s.soon
      ? `Expires ${when}, in ${days === 1 ? '1 day' : `${days} days`}`
      : `Expires ${when}`;
  const stock = batch.supplier
    ? `${batch.remaining} ${unit} left of ${batch.quantity} · from ${batch.supplier}`
    : `${batch.remaining} ${unit} left of ${batch.quantity}`;
  return html`<li class=${`batch ${s.expired ? 'expired' : s.soon || s.low ? 'soon' : ''}`} id=${batch.id}>
    <div class="line"><strong>Batch ${batch.batch}</strong>
      ${s.expired && html`<span class="status expired">Expired</span>`}
      ${s.soon && html`<span class="status open">Expires soon</span>`}
      ${s.low && html`<span class="status open">Low stock</span>`}</div>
    <div class="small">${expiry} · ${stock}</div>
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

function AddMedicine({ farm, onAdded }: { farm: Farm; onAdded(): void }) {
  const form = useForm(async (data, el) => {
    const withdrawal: Periods = {};
    for (const food of ['meat', 'milk', 'eggs'] as const) {
      const days = number(data, `withdrawal.${food}_days`);
      if (days !== null && days !== undefined) withdrawal[`${food}_days`] = days;
    }
    const species = (text(data, 'licensed_species') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const body: Body<'POST', '/v1/farms/{farm}/medicines'> = {
      name: text(data, 'name') ?? '',
      unit: text(data, 'unit') ?? '',
      active_ingredient: text(data, 'active_ingredient'),
      withdrawal,
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
      </div>
      <fieldset class="field-rows"><legend>Withdrawal on the label, in days</legend>
        <p class="small muted">Blank when the label gives none for that food; 0 when it says zero.</p>
        <div class="pair trio">
          <${Field} name="withdrawal.meat_days" label="Meat (days)" type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.milk_days" label="Milk (days)" type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.eggs_days" label="Eggs (days)" type="number" min="0" step="any" ...${p} />
        </div>
      </fieldset>
      <${Field} name="licensed_species" label="Licensed for (species, comma-separated; blank: every species)" ...${p} />
      <datalist id="medicine-units">${['ml', 'g', 'tablet', 'dose', 'bolus'].map((u) => html`<option value=${u} />`)}</datalist>
      <${Submit} form=${form} label="Add medicine" names=${['name', 'unit', 'active_ingredient', 'withdrawal', 'licensed_species']} />
    </form></details>`;
}

function MedicineCard({
  medicine: m,
  timezone,
  write,
  onChanged,
}: {
  medicine: Medicine;
  timezone: string;
  write: boolean;
  onChanged(): void;
}) {
  const licensed = m.licensed_species ?? [];
  return html`<li class="card medicine" id=${m.id}>
    <div class="card-head"><h2 class="card-title">${m.name}</h2><span class="muted">${m.unit}</span></div>
    ${m.active_ingredient && html`<p class="small muted">${m.active_ingredient}</p>`}
    <h3 class="small">Withdrawal on the label</h3>
    <dl class="facts label-periods">${Object.entries(FOODS).map(([food, name]) => html`<div><dt>${name}</dt><dd>${period(m.withdrawal[`${food as keyof typeof FOODS}_days`])}</dd></div>`)}</dl>
    ${Object.entries(m.species_withdrawal ?? {}).map(
      ([name, w]) =>
        html`<p class="small">${`For ${name}: meat ${period(w.meat_days)}, milk ${period(w.milk_days)}, eggs ${period(w.eggs_days)}.`}</p>`,
    )}
    <p class="small">${licensed.length > 0 ? `Licensed for ${licensed.join(', ')}. Given to any other species, the cascade sets its withdrawal.` : 'Licensed for every species.'}</p>
    ${
      m.batches.length === 0
        ? html`<p class="muted small">No batches yet.</p>`
        : html`<ul class="batches">${batchesInOrder(m.batches).map((b) => html`<${BatchRow} key=${b.id} batch=${b} unit=${m.unit} timezone=${timezone} />`)}</ul>`
    }
    ${write && html`<${AddBatch} medicine=${m} onAdded=${onChanged} />`}
  </li>`;
}

export function Page({ farm }: PageProps) {
  const medicines = useLoad(() => loadMedicines(farm.id), [farm.id]);
  useScrollToHash(medicines.data !== null);
  if (!medicines.data) return html`<${Loading} error=${medicines.error} retry=${medicines.reload} />`;
  const write = can('animals', 'write');
  return html`<section class="cabinet">
    <h1>Medicine cabinet</h1>
    <p class="actions"><a class="button secondary" href="/treat">Give a treatment</a>
      <a class="button secondary" href="/movements">Holding register</a></p>
    ${write && html`<${AddMedicine} farm=${farm} onAdded=${medicines.reload} />`}
    ${
      medicines.data.length === 0
        ? html`<p class="muted">No medicines yet: add the ones in your cabinet, with their batches.</p>`
        : html`<ul class="cards">${medicines.data.map((m) => html`<${MedicineCard} key=${m.id} medicine=${m} timezone=${farm.timezone} write=${write} onChanged=${medicines.reload} />`)}</ul>`
    }
  </section>`;
}
