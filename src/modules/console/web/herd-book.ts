/**
 * What the herd book's pages share (issue 46): the withdrawal banner and chips (the API's dates), the
 * override reason a refusal asks for, and the cabinet's batches (expired, expiring, low) in order of use.
 */
import { api, type Problem, type Schema } from './api.ts';
import { errorFor } from './form.ts';
import { dayOf, reader, words } from './i18n.ts';
import { html, linkStyleSheet } from './lib.ts';
import { EN, ES } from './messages/herd-book.ts';
import { loadAll } from './records.ts';
import { ago, ErrorText, farmTime } from './ui.ts';

// Its own style sheet: only these pages load it (the Map page's budget has no room for it in styles.css).
linkStyleSheet(new URL('./herd-book.css', import.meta.url));

const w = words(EN, ES);

type Withdrawal = Schema<'AnimalWithdrawal'>;
type Source = Schema<'WithdrawalSource'>;
type Food = Source['food'];
type Batch = Schema<'MedicineBatch'>;

export const DAY_MS = 86_400_000;
// Expiring within 30 days, as the brief lists it; low at a fifth of what was bought (docs/console.md).
const EXPIRING_DAYS = 30;
const LOW_STOCK_SHARE = 0.2;

type Key = keyof typeof EN;

// One whole sentence per rule, with and without a batch (never a rule's words put into another sentence).
const BECAUSE: Record<Source['rule'], { batch: Key; none: Key }> = {
  label: { batch: 'label_batch', none: 'label_no_batch' },
  cascade: { batch: 'cascade_batch', none: 'cascade_no_batch' },
  cascade_minimum: { batch: 'minimum_batch', none: 'minimum_no_batch' },
};

const FOODS: Record<Food, { line: Key; chip: Key }> = {
  meat: { line: 'meat_line', chip: 'meat_chip' },
  milk: { line: 'milk_line', chip: 'milk_chip' },
  eggs: { line: 'eggs_line', chip: 'eggs_chip' },
};

function held(w: Withdrawal | undefined) {
  return (['meat', 'milk', 'eggs'] as const).flatMap((food) => {
    const until = w?.[`${food}_until`];
    if (!until || Date.parse(until) <= Date.now()) return [];
    const sources = w.because.filter((s) => s.food === food);
    return [{ food, until, source: sources.find((s) => s.until === until) ?? sources[0] }];
  });
}

function because(s: Source): string {
  const rule = BECAUSE[s.rule];
  const sentence = w(s.batch ? rule.batch : rule.none, {
    medicine: s.medicine,
    batch: s.batch,
    count: s.days,
  });
  return s.organic ? `${sentence} ${w('organic')}` : sentence;
}

export function WithdrawalBanner({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  const foods = held(withdrawal);
  if (foods.length === 0) return null;
  return html`<div class="withdrawal-banner" role="note" aria-labelledby="withdrawal-title">
    <h2 id="withdrawal-title">${w('title')}</h2>
    <ul>${foods.map(
      (
        h,
      ) => html`<li><strong>${w(FOODS[h.food].line, { when: farmTime(h.until, timezone), left: ago(h.until) })}</strong>
        ${h.source && html`<br /><span class="small">${because(h.source)}</span>`}</li>`,
    )}</ul>
  </div>`;
}

export function WithdrawalChips({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  return held(withdrawal).map(
    (h) =>
      html`<span class="withdrawal-chip">${w(FOODS[h.food].chip, { when: dayOf(h.until, timezone) })}</span>`,
  );
}

/** An id the API puts beside a name for its readers ("H-1 (ani_01…)"), not for a person. */
const ID_ASIDE = / \([a-z]{2,5}_[0-9a-z]{20,}\)/g;
/** An instant as the API writes it ("2026-12-23T10:46:13.072Z"). */
const INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z/g;

/**
 * The API's refusal in a farmer's words: it names the member to send, where the form has a field for it; the
 * ids beside the names are left out and each instant is written in the farm's time, as the rest of the page.
 */
export function refusalText(message: string, timezone?: string): string {
  return message
    .replace(/\b([Ss])end override_reason\b/, (_, s: string) => {
      // Mid-sentence ("…; send override_reason to use it anyway") it stays lower-case.
      const give = w('give_reason');
      return s === 's' ? give.charAt(0).toLocaleLowerCase(reader.locale) + give.slice(1) : give;
    })
    .replace(ID_ASIDE, '')
    .replace(INSTANT, (iso) => farmTime(iso, timezone));
}

/** The override reason, once a refusal asks for it (its message above the field) or an expired batch needs it. */
export function OverrideField({
  error,
  needed = false,
  idPrefix,
  label,
  timezone,
}: {
  error: Problem | null;
  needed?: boolean;
  idPrefix: string;
  label?: string;
  /** The farm's: the instants of a refusal are written in it. */
  timezone?: string;
}) {
  const own = errorFor(error, 'override_reason');
  if (!needed && !own && !/override_reason/.test(error?.message ?? '')) return null;
  const id = `${idPrefix}-override_reason`;
  return html`<div class="field override-field">
    <${ErrorText} error=${own} id=${`${id}-error`} label=${label ?? w('override')} text=${own && refusalText(own.message, timezone)} />
    <label for=${id}>${label ?? w('override')}</label>
    <textarea id=${id} name="override_reason" rows="3" aria-describedby=${own ? `${id}-error` : undefined}
      aria-invalid=${own ? 'true' : undefined}></textarea>
  </div>`;
}

export async function loadMedicines(farm: string) {
  const all = await loadAll((before) =>
    api('GET', '/v1/farms/{farm}/medicines', { path: { farm }, query: { limit: 100, before } }),
  );
  return all.sort((a, b) => a.name.localeCompare(b.name));
}

export function batchState(b: Batch, now = Date.now()) {
  const expires = Date.parse(b.expiry);
  return {
    expired: b.expired || expires <= now,
    soon: expires > now && expires - now <= EXPIRING_DAYS * DAY_MS,
    low: b.remaining <= b.quantity * LOW_STOCK_SHARE,
  };
}

/** Unexpired first, the soonest to expire first. */
export function batchesInOrder(batches: readonly Batch[]): Batch[] {
  const expired = (b: Batch) => (batchState(b).expired ? 1 : 0);
  return [...batches].sort((a, b) => expired(a) - expired(b) || Date.parse(a.expiry) - Date.parse(b.expiry));
}
