/** The medicine cabinet (issue 46): medicines, their labels and batches; add a medicine or a batch. */
import { speciesWord } from '../../../../domain/animal-terms.ts';
import { api, type Body, type Schema } from '../api.ts';
import { date, Field, number, Submit, text, useForm } from '../form.ts';
import { batchesInOrder, batchState, DAY_MS, loadMedicines } from '../herd-book.ts';
import { dayOf, listOf, num, reader, words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/medicines.ts';
import { useReader } from '../reader-hook.ts';
import { can, type Farm } from '../store.ts';
import { Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Medicine = Schema<'Medicine'>;
type Batch = Schema<'MedicineBatch'>;
type Periods = Medicine['withdrawal'];

const w = words(EN, ES);

const FOODS = { meat: 'meat', milk: 'milk', eggs: 'eggs' } as const;

function period(days: number | undefined): string {
  return days === undefined ? w('none_on_label') : days === 0 ? w('zero') : w('days', { count: days });
}

function BatchRow({ batch, unit, timezone }: { batch: Batch; unit: string; timezone: string }) {
  const s = batchState(batch);
  const when = dayOf(batch.expiry, timezone);
  const days = Math.ceil((Date.parse(batch.expiry) - Date.now()) / DAY_MS);
  const expiry = s.expired
    ? w('expired_on', { when })
    : s.soon
      ? w('expires_in', { when, count: days })
      : w('expires_on', { when });
  const figures = { remaining: num(batch.remaining, 2), unit, quantity: num(batch.quantity, 2) };
  const stock = batch.supplier
    ? w('stock_from', { ...figures, supplier: batch.supplier })
    : w('stock', figures);
  return html`<li class=${`batch ${s.expired ? 'expired' : s.soon || s.low ? 'soon' : ''}`} id=${batch.id}>
    <div class="line"><strong>${w('batch', { batch: batch.batch })}</strong>
      ${s.expired && html`<span class="status expired">${w('expired')}</span>`}
      ${s.soon && html`<span class="status open">${w('expires_soon')}</span>`}
      ${s.low && html`<span class="status open">${w('low_stock')}</span>`}</div>
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
    return w('batch_added', { batch: body.batch });
  });
  const p = { error: form.error, idPrefix: `b-${medicine.id}` };
  return html`<details class="add-form"><summary>${w('add_batch')}</summary>
    <form onSubmit=${form.onSubmit} aria-label=${w('add_batch_of', { name: medicine.name })}>
      <div class="form-grid">
        <${Field} name="batch" label=${w('batch_number')} required ...${p} />
        <${Field} name="expiry" label=${w('expiry')} type="date" required ...${p} />
        <${Field} name="quantity" label=${w('quantity', { unit: medicine.unit })} type="number" min="0" step="any" required ...${p} />
        <${Field} name="supplier" label=${w('supplier')} ...${p} />
        <${Field} name="purchased_at" label=${w('bought_on')} type="date" ...${p} />
        <${Field} name="proof_of_purchase" label=${w('proof')} ...${p} />
      </div>
      <${Submit} form=${form} label=${w('add_batch_submit')} names=${['batch', 'expiry', 'quantity', 'supplier', 'purchased_at', 'proof_of_purchase']} />
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
    return w('medicine_added', { name: made.name });
  });
  const p = { error: form.error, idPrefix: 'med' };
  return html`<details class="add-form panel"><summary>${w('add_medicine')}</summary>
    <form onSubmit=${form.onSubmit} aria-label=${w('add_medicine')}>
      <div class="form-grid">
        <${Field} name="name" label=${w('name')} required ...${p} />
        <${Field} name="unit" label=${w('unit')} list="medicine-units" required ...${p} />
        <${Field} name="active_ingredient" label=${w('ingredient')} ...${p} />
      </div>
      <fieldset class="field-rows"><legend>${w('label_days')}</legend>
        <p class="small muted">${w('label_hint')}</p>
        <div class="pair trio">
          <${Field} name="withdrawal.meat_days" label=${w('meat_days')} type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.milk_days" label=${w('milk_days')} type="number" min="0" step="any" ...${p} />
          <${Field} name="withdrawal.eggs_days" label=${w('eggs_days')} type="number" min="0" step="any" ...${p} />
        </div>
      </fieldset>
      <${Field} name="licensed_species" label=${w('licensed_field')} ...${p} />
      <datalist id="medicine-units">${['ml', 'g', 'tablet', 'dose', 'bolus'].map((u) => html`<option value=${u} />`)}</datalist>
      <${Submit} form=${form} label=${w('add_medicine_submit')} names=${['name', 'unit', 'active_ingredient', 'withdrawal', 'licensed_species']} />
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
    <h3 class="small">${w('on_label')}</h3>
    <dl class="facts label-periods">${Object.entries(FOODS).map(([food, name]) => html`<div><dt>${w(name)}</dt><dd>${period(m.withdrawal[`${food as keyof typeof FOODS}_days`])}</dd></div>`)}</dl>
    ${Object.entries(m.species_withdrawal ?? {}).map(
      ([name, days]) =>
        html`<p class="small">${w('for_species', { species: speciesWord(reader.language, name), meat: period(days.meat_days), milk: period(days.milk_days), eggs: period(days.eggs_days) })}</p>`,
    )}
    <p class="small">${licensed.length > 0 ? w('licensed_for', { species: listOf(licensed.map((s) => speciesWord(reader.language, s))) }) : w('licensed_all')}</p>
    ${
      m.batches.length === 0
        ? html`<p class="muted small">${w('no_batches')}</p>`
        : html`<ul class="batches">${batchesInOrder(m.batches).map((b) => html`<${BatchRow} key=${b.id} batch=${b} unit=${m.unit} timezone=${timezone} />`)}</ul>`
    }
    ${write && html`<${AddBatch} medicine=${m} onAdded=${onChanged} />`}
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const medicines = useLoad(() => loadMedicines(farm.id), [farm.id]);
  useScrollToHash(medicines.data !== null);
  if (!medicines.data) return html`<${Loading} error=${medicines.error} retry=${medicines.reload} />`;
  const write = can('animals', 'write');
  return html`<section class="cabinet">
    <h1>${w('title')}</h1>
    <p class="actions"><a class="button secondary" href="/treat">${w('treat')}</a>
      <a class="button secondary" href="/movements">${w('register')}</a></p>
    ${write && html`<${AddMedicine} farm=${farm} onAdded=${medicines.reload} />`}
    ${
      medicines.data.length === 0
        ? html`<p class="muted">${w('none')}</p>`
        : html`<ul class="cards">${medicines.data.map((m) => html`<${MedicineCard} key=${m.id} medicine=${m} timezone=${farm.timezone} write=${write} onChanged=${medicines.reload} />`)}</ul>`
    }
  </section>`;
}
