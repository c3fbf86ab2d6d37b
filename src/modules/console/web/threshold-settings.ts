/**
 * The Settings page's alert thresholds table (/settings/rules): every threshold rule of the catalog by its
 * title in the reader's language (src/domain/alert-terms.ts) and its measure with the unit the reader reads
 * its lines in, the default under each value, an error on the cell it names (lines out of order said before
 * saving, in the reader's units; any other the API's). Lines are shown and typed
 * in the reader's units (°F for a US reader) and saved in the catalog's; a line left as shown keeps its
 * exact value. Its own module, loaded when the section is opened. The rules and their defaults come from the
 * registry the catalog publishes (src/domain/rules.ts), not from GET /v1/catalog: the page needs nothing else
 * of the catalog, and the call weighed 5.6 KB of the page's first load.
 */

import { alertTerm, ruleTitle } from '../../../domain/alert-terms.ts';
import { parseTypedNumber } from '../../../domain/display-units.ts';
import { unitOf } from '../../../domain/metrics.ts';
import { DEFAULT_RULES, type RuleThresholds } from '../../../domain/rules.ts';
import { thresholdOrderProblem } from '../../../domain/threshold-order.ts';
import type { Problem } from './api.ts';
import { Submit, useForm } from './form.ts';
import { entered, num, qty, reader, shown, unitLabel, words } from './i18n.ts';
import { html, inputValue, useState } from './lib.ts';
import { EN, ES } from './messages/settings.ts';
import { type RuleSettings, saveRules } from './pages/rule-settings.ts';
import { type Farm, useStore } from './store.ts';
import { ErrorText } from './ui.ts';

const w = words(EN, ES);

const MEMBERS = ['watch', 'urgent', 'clear'] as const;
type Member = (typeof MEMBERS)[number];
/** The threshold rules as the catalog lists them: each with its metric's unit. */
const THRESHOLD_RULES = DEFAULT_RULES.map((r) => ({
  ...r,
  unit: unitOf(r.metric),
}));
type ThresholdRule = (typeof THRESHOLD_RULES)[number];

/** A built-in rule's title in the reader's language ("Amoníaco alto"); its name when it has none. */
const titleOf = (r: ThresholdRule) => ruleTitle(reader.language, r.name) ?? r.name;

/** What it measures, with the unit the reader reads its lines in: "Temperature (°F)". */
function ruleMeasure(r: ThresholdRule): string {
  const measure = alertTerm(reader.language, `rule.${r.name}.measure`) ?? r.metric;
  return r.unit ? `${measure} (${unitLabel(r.unit)})` : measure;
}

/** A line in the catalog's unit as the reader types it (°C read as °F in US units), '' for none. */
function typedLine(value: number | null | undefined, unit: string | null): string {
  if (value === null || value === undefined) return '';
  return String(unit ? Math.round(shown(value, unit) * 100) / 100 : value);
}

/**
 * Lines out of order (the API's own check, threshold-order.ts), said in the reader's language and units on
 * the cell to change, before saving: the API would say it in the catalog's units ("clear (41)"), which a US
 * reader did not type. Null when they are in order, or when a line is not a number (the API names that).
 */
function orderProblem(rule: ThresholdRule, changed: Record<string, unknown>): Problem | null {
  const lines: RuleThresholds = { watch: rule.watch, urgent: rule.urgent, clear: rule.clear };
  for (const [m, v] of Object.entries(changed)) {
    if (m === 'urgent' && v === null) lines.urgent = null;
    else if (typeof v === 'number') lines[m as Member] = v;
    else return null;
  }
  const given = new Set(Object.keys(changed) as Member[]);
  const problem = thresholdOrderProblem(rule.direction, lines, given);
  if (!problem) return null;
  const line = (m: Member) => qty(lines[m], rule.unit, 2);
  const said = w(`order.${problem.relation}`, {
    member: w(`member.${problem.member}`),
    value: line(problem.member),
    other: w(`member.${problem.other}`),
    other_value: line(problem.other),
  });
  const clear = problem.member === 'clear' || problem.other === 'clear';
  return {
    param: `settings.rules.${rule.name}.${problem.member}`,
    message: clear ? `${said} ${w('order.clear_why')}` : said,
  };
}

/** Alert thresholds of every rule: the catalog's default beside the farm's value, edited in place. */
export function Thresholds({ farm }: { farm: Farm }) {
  useStore();
  // Threshold rules only: the rate, silence and roll-up rules (water.leak, device.quiet,
  // group.intake_drop) have other settings (a change and window, a silence), not watch/urgent/clear lines.
  const thresholdRules = THRESHOLD_RULES;
  const ownRules = (farm.settings.rules ?? {}) as RuleSettings;
  const ownLine = (r: ThresholdRule, m: Member) => {
    const own = ownRules[r.name]?.[m];
    return typeof own === 'number' || own === null ? own : undefined;
  };
  // The lines as the reader types them: in their units (the form converts back to the catalog's on save).
  const [values, setValues] = useState<Record<string, Record<Member, string>>>(() =>
    Object.fromEntries(
      thresholdRules.map((r) => [
        r.name,
        Object.fromEntries(
          MEMBERS.map((m) => {
            const own = ownLine(r, m);
            return [m, own === undefined ? typedLine(r[m], r.unit) : typedLine(own, r.unit)];
          }),
        ) as Record<Member, string>,
      ]),
    ),
  );
  const form = useForm(async () => {
    // The other rules' own settings are kept as they are (this table does not edit them).
    const shown = new Set<string>(thresholdRules.map((r) => r.name));
    const rules = Object.fromEntries(Object.entries(ownRules).filter(([name]) => !shown.has(name)));
    for (const rule of thresholdRules) {
      const own = ownRules[rule.name] ?? {};
      const changed: Record<string, unknown> = {};
      for (const m of MEMBERS) {
        const typed = (values[rule.name]?.[m] ?? '').trim();
        const fallback = rule[m];
        if (typed === '' && m === 'urgent') {
          if (fallback !== null) changed.urgent = null;
          continue;
        }
        // A line typed as shown is the value it shows (no drift from converting back and forth).
        const own = ownLine(rule, m);
        let n: number | null = fallback;
        if (typed === '' || typed === typedLine(fallback, rule.unit)) n = fallback;
        else if (own !== undefined && typed === typedLine(own, rule.unit)) n = own;
        else if (rule.unit && Number.isFinite(parseTypedNumber(typed, reader.locale)))
          n = Math.round(entered(parseTypedNumber(typed, reader.locale), rule.unit) * 1000) / 1000;
        else n = parseTypedNumber(typed, reader.locale);
        if (n !== fallback) changed[m] = n === null || Number.isFinite(n) ? n : typed;
      }
      const problem = orderProblem(rule, changed);
      if (problem) throw problem;
      if (own.for_s !== undefined) changed.for_s = own.for_s;
      if (Object.keys(changed).length > 0) rules[rule.name] = changed;
    }
    await saveRules(farm, rules);
    return w('thresholds_saved');
  });
  const errorAt = (rule: string, member: Member) =>
    form.error?.param === `settings.rules.${rule}.${member}` ? form.error : null;
  const placed = form.error?.param && thresholdRules.some((r) => MEMBERS.some((m) => errorAt(r.name, m)));
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="rules-title">
    <h2 id="rules-title">${w('thresholds')}</h2>
    <p class="small muted">${w('thresholds_help')}</p>
    <div class="table-wrap"><table class="records thresholds">
      <caption class="visually-hidden">${w('thresholds_by_rule')}</caption>
      <thead><tr><th scope="col">${w('rule')}</th>${MEMBERS.map((m) => html`<th scope="col">${w(`member.${m}`)}</th>`)}</tr></thead>
      <tbody>${thresholdRules.map(
        (r) => html`<tr key=${r.name}>
          <th scope="row">${titleOf(r)}<br /><span class="small muted">${ruleMeasure(r)}</span></th>
          ${MEMBERS.map((m) => {
            const id = `rule-${r.name}-${m}`;
            const error = errorAt(r.name, m);
            const value = values[r.name]?.[m] ?? '';
            const fallback = typedLine(r[m], r.unit);
            const overridden = value.trim() !== '' && value.trim() !== fallback;
            const label = w('cell_label', { rule: titleOf(r), member: w(`member.${m}`) });
            return html`<td class="threshold-cell">
              <label class="visually-hidden" for=${id}>${label}</label>
              <span class="cell-name" aria-hidden="true">${w(`member.${m}`)}</span>
              <input id=${id} type="text" autocomplete="off" inputmode="decimal" value=${value}
                class=${overridden ? 'override' : ''} aria-invalid=${error ? 'true' : undefined}
                aria-describedby=${error ? `${id}-error` : undefined}
                onInput=${(e: Event) => setValues({ ...values, [r.name]: { ...(values[r.name] as Record<Member, string>), [m]: inputValue(e) } })} />
              <div class="small muted">${w(overridden ? 'default_changed' : 'default', { value: fallback === '' ? w('none') : num(Number(fallback), 2) })}</div>
              <${ErrorText} error=${error} id=${`${id}-error`} label=${label} />
            </td>`;
          })}
        </tr>`,
      )}</tbody>
    </table></div>
    <${Submit} form=${{ ...form, error: placed ? null : form.error }} label=${w('save_thresholds')} />
  </form>`;
}
