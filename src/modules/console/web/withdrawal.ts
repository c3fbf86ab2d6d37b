/**
 * An animal's withdrawal as the herd book shows it (issue 46, docs/records.md): the banner on its page (meat,
 * milk and eggs, until when, because of which medicine and batch) and the chip on the animals list. The
 * dates are the API's (`withdrawal` on the Animal); the page computes none of them.
 */
import type { Problem, Schema } from './api.ts';
import { errorFor } from './form.ts';
import { html } from './lib.ts';
import { ago, farmTime } from './ui.ts';

type Withdrawal = Schema<'AnimalWithdrawal'>;
type Source = Schema<'WithdrawalSource'>;
type Food = Source['food'];

const FOODS: readonly Food[] = ['meat', 'milk', 'eggs'];

/** What each rule behind a date means, for a farmer. */
const RULE_WORDS: Record<Source['rule'], string> = {
  label: 'the label’s period',
  cascade: 'off-label: the label’s longest period × the cascade factor',
  cascade_minimum: 'off-label: the statutory minimum',
};

/** The foods still held at `now`, each with its end and the source behind that end. */
export function heldFoods(
  withdrawal: Withdrawal | undefined,
  now = Date.now(),
): { food: Food; until: string; source: Source | undefined }[] {
  if (!withdrawal) return [];
  const out: { food: Food; until: string; source: Source | undefined }[] = [];
  for (const food of FOODS) {
    const until = withdrawal[`${food}_until`];
    if (!until || Date.parse(until) <= now) continue;
    const sources = withdrawal.because.filter((s) => s.food === food);
    out.push({ food, until, source: sources.find((s) => s.until === until) ?? sources[0] });
  }
  return out;
}

/** One food's line: "Meat: not to the food chain before Dec 12, 09:30 (in 13 days)". */
function foodLine(food: Food, when: string, relative: string): string {
  switch (food) {
    case 'meat':
      return `Meat: not for slaughter or sale before ${when} (${relative})`;
    case 'milk':
      return `Milk: withheld until ${when} (${relative})`;
    case 'eggs':
      return `Eggs: withheld until ${when} (${relative})`;
  }
}

function becauseLine(source: Source): string {
  const rule = RULE_WORDS[source.rule];
  const sentence = source.batch
    ? `Because of ${source.medicine}, batch ${source.batch}: ${rule}, ${source.days} days.`
    : `Because of ${source.medicine} (no batch recorded): ${rule}, ${source.days} days.`;
  return source.organic ? `${sentence} Doubled: organic.` : sentence;
}

/** A chip's words for one food held: "Meat until Dec 12". */
function chipLine(food: Food, when: string): string {
  switch (food) {
    case 'meat':
      return `Meat withdrawal until ${when}`;
    case 'milk':
      return `Milk withheld until ${when}`;
    case 'eggs':
      return `Eggs withheld until ${when}`;
  }
}

/** The banner on an animal's page while any food is withheld; nothing when it is clear. */
export function WithdrawalBanner({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  const held = heldFoods(withdrawal);
  if (held.length === 0) return null;
  return html`<div class="withdrawal-banner" role="note" aria-labelledby="withdrawal-title">
    <h2 id="withdrawal-title">Under withdrawal</h2>
    <ul>${held.map(
      (
        h,
      ) => html`<li key=${h.food}><strong>${foodLine(h.food, farmTime(h.until, timezone), ago(h.until))}</strong>
        ${h.source && html`<br /><span class="small">${becauseLine(h.source)}</span>`}</li>`,
    )}</ul>
  </div>`;
}

/** The chips on a list row: each food held and until when. */
export function WithdrawalChip({ withdrawal, timezone }: { withdrawal: Withdrawal; timezone: string }) {
  const held = heldFoods(withdrawal);
  if (held.length === 0) return null;
  return held.map(
    (h) =>
      html`<span key=${h.food} class="withdrawal-chip">${chipLine(h.food, dayOf(h.until, timezone))}</span>`,
  );
}

/** "Dec 12" in the farm's time zone. */
export function dayOf(iso: string, timezone: string): string {
  return new Intl.DateTimeFormat('en', {
    timeZone: timezone || undefined,
    month: 'short',
    day: 'numeric',
  }).format(new Date(iso));
}

/** The API's refusal in a farmer's words: it names the member to send, the form has a field for it. */
export function refusalText(message: string): string {
  return message.replace(/\b[Ss]end override_reason\b/, 'Give a reason below');
}

/**
 * The override reason a refusal asks for: shown once the API's answer names `override_reason` (a 409
 * `withdrawal_active`: its message above the field, which answers it), or when the page knows one is needed
 * (an expired batch).
 */
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
  const asked = own !== null || /override_reason/.test(error?.message ?? '');
  if (!needed && !asked) return null;
  const id = `${idPrefix}-override_reason`;
  const errorId = own ? `${id}-error` : undefined;
  return html`<div class="field override-field">
    ${own && html`<p class="error" role="alert" id=${errorId}>${refusalText(own.message)}</p>`}
    <label for=${id}>${label}</label>
    <textarea id=${id} name="override_reason" rows="3" aria-describedby=${errorId}
      aria-invalid=${own ? 'true' : undefined}></textarea>
  </div>`;
}
