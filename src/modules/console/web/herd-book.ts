/**
 * What the herd book's pages share (issue 46): the withdrawal banner and chips (the API's dates), the
 * override reason a refusal asks for, and the cabinet's batches (expired, expiring, low) in order of use.
 */
import { api, type Problem, type Schema } from './api.ts';
import { errorFor } from './form.ts';
import { reader } from './i18n.ts';
import { html } from './lib.ts';
import { loadAll } from './records.ts';
import { ago, farmTime } from './ui.ts';

// Its own style sheet: only these pages load it (the Map page's budget has no room for it in styles.css).
const sheet = document.createElement('link');
sheet.rel = 'stylesheet';
sheet.href = new URL('./herd-book.css', import.meta.url).href;
document.head.append(sheet);

type Withdrawal = Schema<'AnimalWithdrawal'>;
type Source = Schema<'WithdrawalSource'>;
type Food = Source['food'];
type Batch = Schema<'MedicineBatch'>;

export const DAY_MS = 86_400_000;
// Expiring within 30 days, as the brief lists it; low at a fifth of what was bought (docs/console.md).
const EXPIRING_DAYS = 30;
const LOW_STOCK_SHARE = 0.2;

const RULES: Record<Source['rule'], string> = {
  label: 'the label’s period',
  cascade: 'off-label: the label’s longest period × the cascade factor',
  cascade_minimum: 'off-label: the statutory minimum',
};

const FOODS: Record<Food, { line(when: string, left: string): string; chip(when: string): string }> = {
  meat: {
    line: (when, left) => `Meat: not for slaughter or sale before ${when} (${left})`,
    chip: (when) => `Meat withdrawal until ${when}`,
  },
  milk: {
    line: (when, left) => `Milk: withheld until ${when} (${left})`,
    chip: (when) => `Milk withheld until ${when}`,
  },
  eggs: {
    line: (when, left) => `Eggs: withheld until ${when} (${left})`,
    chip: (when) => `Eggs withheld until ${when}`,
  },
};

export function nameOf(a: Pick<Schema<'Animal'>, 'tag' | 'name' | 'id'>): string {
  return [a.tag, a.name].filter(Boolean).join(' ') || a.id;
}

export function dayOf(iso: string, timezone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    timeZone: timezone || undefined,
    month: 'short',
    day: 'numeric',
  };
  try {
    return new Intl.DateTimeFormat(reader.locale, options).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en', options).format(new Date(iso));
  }
}

function held(w: Withdrawal | undefined) {
  return (['meat', 'milk', 'eggs'] as const).flatMap((food) => {
    const until = w?.[`${food}_until`];
    if (!until || Date.parse(until) <= Date.now()) return [];
    const sources = w.because.filter((s) => s.food === food);
    return [{ food, until, source: sources.find((s) => s.until === until) ?? sources[0] }];
  });
}

function because(s: Source): string {
  const sentence = s.batch
    ? `Because of ${s.medicine}, batch ${s.batch}: ${RULES[s.rule]}, ${s.days} days.`
    : `Because of ${s.medicine} (no batch recorded): ${RULES[s.rule]}, ${s.days} days.`;
  return s.organic ? `${sentence} Doubled: organic.` : sentence;
}

export function WithdrawalBanner({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  const foods = held(withdrawal);
  if (foods.length === 0) return null;
  return html`<div class="withdrawal-banner" role="note" aria-labelledby="withdrawal-title">
    <h2 id="withdrawal-title">Under withdrawal</h2>
    <ul>${foods.map(
      (h) => html`<li><strong>${FOODS[h.food].line(farmTime(h.until, timezone), ago(h.until))}</strong>
        ${h.source && html`<br /><span class="small">${because(h.source)}</span>`}</li>`,
    )}</ul>
  </div>`;
}

export function WithdrawalChips({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  return held(withdrawal).map(
    (h) => html`<span class="withdrawal-chip">${FOODS[h.food].chip(dayOf(h.until, timezone))}</span>`,
  );
}

/** The API's refusal in a farmer's words: it names the member to send; the form has a field for it. */
export function refusalText(message: string): string {
  return message.replace(/\b[Ss]end override_reason\b/, 'Give a reason below');
}

/** The override reason, once a refusal asks for it (its message above the field) or an expired batch needs it. */
export function OverrideField({
  error,
  needed = false,
  idPrefix,
  label = 'Reason to go ahead anyway (kept with the record)',
}: {
  error: Problem | null;
  needed?: boolean;
  idPrefix: string;
  label?: string;
}) {
  const own = errorFor(error, 'override_reason');
  if (!needed && !own && !/override_reason/.test(error?.message ?? '')) return null;
  const id = `${idPrefix}-override_reason`;
  return html`<div class="field override-field">
    ${own && html`<p class="error" role="alert" id=${`${id}-error`}>${refusalText(own.message)}</p>`}
    <label for=${id}>${label}</label>
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
