/**
 * The settings page's panel for the built-in rules that are not thresholds: water dropping fast
 * (water.leak), devices gone quiet (device.quiet) and a group's intake drop (group.intake_drop). It shows
 * each as the farm has it (GET /v1/farms/{farm}/rules) beside the defaults (the rules' own constants in
 * src/domain/built-in-rules.ts, which the catalog publishes), in the units a
 * farmer thinks in (points, minutes, percent), and saves through the farm's settings.rules like the
 * thresholds table; the API's error shows on the field it names.
 */
import {
  DEVICE_QUIET_RULE,
  INTAKE_DROP_RULE,
  MAX_DROP_PCT,
  MAX_QUIET_AFTER_S,
  MAX_WINDOW_S,
  MIN_DROP_PCT,
  MIN_QUIET_AFTER_S,
  MIN_WINDOW_S,
  WATER_LEAK_RULE,
} from '../../../../domain/built-in-rules.ts';
import { api, type Body, type Problem, type Schema } from '../api.ts';
import { typeName } from '../device-type.ts';
import { errorFor, Field, Submit, useForm } from '../form.ts';
import { words } from '../i18n.ts';
import { type ComponentChildren, html } from '../lib.ts';
import { EN, ES } from '../messages/rule-settings.ts';
import { useReader } from '../reader-hook.ts';
import { type Farm, state, update, useStore } from '../store.ts';
import { ErrorText, Loading, useLoad } from '../ui.ts';

const LEAK = WATER_LEAK_RULE.name;
const QUIET = DEVICE_QUIET_RULE.name;
const INTAKE = INTAKE_DROP_RULE.name;
type OwnRule = typeof LEAK | typeof QUIET | typeof INTAKE;
const OWN = new Set<string>([LEAK, QUIET, INTAKE]);
const w = words(EN, ES);
const path = (rule: OwnRule, member: string) => `settings.rules.${rule}.${member}`;

type Rule = Schema<'Rule'>;
/** A farm's settings.rules as the forms read and write them (the API checks every member). */
export type RuleSettings = Record<string, Record<string, unknown>>;

/**
 * Saves a farm's settings.rules (null when none differs from the defaults) and keeps the store's farm. The
 * forms' values are numbers, or what the person typed when it is not one (sent as typed, so the API's error
 * names the field): hence the one cast, here.
 */
export async function saveRules(farm: Farm, rules: RuleSettings): Promise<void> {
  const body = { settings: { rules: Object.keys(rules).length > 0 ? rules : null } };
  const saved = await api('PATCH', '/v1/farms/{farm}', {
    path: { farm: farm.id },
    body: body as Body<'PATCH', '/v1/farms/{farm}'>,
  });
  update({ farms: state.farms.map((f) => (f.id === saved.id ? saved : f)) });
}

/** A typed number, scaled (minutes → seconds); blank is the default; anything else goes as typed, so the API names it. */
function typed(data: FormData, name: string, fallback: number, scale = 1): number | string {
  const raw = String(data.get(name) ?? '').trim();
  if (raw === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.round(n * scale * 1000) / 1000 : raw;
}

/**
 * settings.rules for the three rules from the form: only what differs from the defaults, so defaults move
 * with the rules' constants. `quietTypes`: the device types with a quiet floor (from the farm's rule).
 */
function readRules(data: FormData, quietTypes: string[], own: RuleSettings): RuleSettings {
  const rules: RuleSettings = {};
  const leak: Record<string, unknown> = {};
  const fall = typed(data, path(LEAK, 'change'), -WATER_LEAK_RULE.change);
  if (fall !== -WATER_LEAK_RULE.change) leak.change = typeof fall === 'number' ? -Math.abs(fall) : fall;
  const window = typed(data, path(LEAK, 'window_s'), WATER_LEAK_RULE.window_s, 60);
  if (window !== WATER_LEAK_RULE.window_s) leak.window_s = window;
  // for_s has no control here; it is kept as the farm set it (through the API).
  if (own[LEAK]?.for_s !== undefined) leak.for_s = own[LEAK].for_s;
  if (!data.get(path(LEAK, 'enabled'))) leak.enabled = false;
  if (Object.keys(leak).length > 0) rules[LEAK] = leak;

  const quiet: Record<string, unknown> = {};
  const after: Record<string, number | string> = {};
  for (const type of quietTypes) {
    const s = typed(data, path(QUIET, `quiet_after_s.${type}`), DEVICE_QUIET_RULE.quiet_after_s, 60);
    if (s !== DEVICE_QUIET_RULE.quiet_after_s) after[type] = s;
  }
  if (Object.keys(after).length > 0) quiet.quiet_after_s = after;
  if (!data.get(path(QUIET, 'enabled'))) quiet.enabled = false;
  if (Object.keys(quiet).length > 0) rules[QUIET] = quiet;

  const intake: Record<string, unknown> = {};
  const drops: Record<string, number | string> = {};
  for (const m of INTAKE_DROP_RULE.metrics) {
    const pct = typed(data, path(INTAKE, `drop_pct.${m.metric}`), m.drop_pct);
    if (pct !== m.drop_pct) drops[m.metric] = pct;
  }
  if (Object.keys(drops).length > 0) intake.drop_pct = drops;
  if (!data.get(path(INTAKE, 'enabled'))) intake.enabled = false;
  if (Object.keys(intake).length > 0) rules[INTAKE] = intake;
  return rules;
}

function OnOff({ rule, on, error }: { rule: OwnRule; on: boolean; error: Problem | null }) {
  const id = `rule-${rule}-enabled`;
  return html`<label class="rule-toggle" for=${id}>
    <input type="checkbox" id=${id} name=${path(rule, 'enabled')} value="on" defaultChecked=${on} />${w('on')}</label>
    <${ErrorText} error=${errorFor(error, path(rule, 'enabled'))} />`;
}

/** One rule as a fieldset: its title and switch, a sentence saying what it does, its settings. */
function RuleBox({
  rule,
  name,
  title,
  what,
  error,
  children,
}: {
  rule: Rule;
  name: OwnRule;
  title: string;
  what: string;
  error: Problem | null;
  children: ComponentChildren;
}) {
  return html`<fieldset class="rule-box" id=${`rule-${name}`}>
    <legend>${title}</legend>
    <${OnOff} rule=${name} on=${rule.enabled} error=${error} />
    <p class="small muted">${what}</p>
    ${children}
  </fieldset>`;
}

const minutes = (s: number) => Math.round((s / 60) * 100) / 100;

/** A span of seconds as a farmer says it: days, hours or minutes. */
function span(s: number): string {
  if (s % 86_400 === 0) return w('days', { count: s / 86_400 });
  if (s % 3600 === 0) return w('hours', { count: s / 3600 });
  return w('minutes', { count: minutes(s) });
}

/**
 * The API checks these fields in seconds while the form asks for minutes: its error on one is said again
 * in minutes (what was typed, and the range), still on the field it names.
 */
function inMinutes(error: Problem | null): Problem | null {
  const param = error?.param ?? '';
  const bounds: readonly [number, number] | null = param.startsWith(path(QUIET, 'quiet_after_s.'))
    ? [MIN_QUIET_AFTER_S, MAX_QUIET_AFTER_S]
    : param === path(LEAK, 'window_s')
      ? [MIN_WINDOW_S, MAX_WINDOW_S]
      : null;
  if (!bounds || !error) return error;
  const got = /got (-?[\d.]+)/.exec(error.message ?? '');
  const range = { from: span(bounds[0]), to: span(bounds[1]) };
  const message = got ? w('range_typed', { ...range, count: minutes(Number(got[1])) }) : w('range', range);
  return { ...error, message };
}

/** The built-in water, silence and intake rules of a farm, edited in farmers' units. */
export function BuiltInRules({ farm }: { farm: Farm }) {
  useReader();
  useStore();
  const listed = useLoad(() => api('GET', '/v1/farms/{farm}/rules', { path: { farm: farm.id } }), [farm.id]);
  const form = useForm(async (data) => {
    const own = (farm.settings.rules ?? {}) as RuleSettings;
    // The threshold rules' overrides are kept as they are (the thresholds table edits them).
    const rules = Object.fromEntries(Object.entries(own).filter(([name]) => !OWN.has(name)));
    const current = listed.data?.data.find((r) => r.name === QUIET);
    Object.assign(rules, readRules(data, Object.keys(current?.quiet_after_s ?? {}), own));
    await saveRules(farm, rules);
    listed.reload();
    return w('saved');
  });
  if (!listed.data) return html`<${Loading} error=${listed.error} retry=${listed.reload} />`;
  const rules = listed.data.data;
  const leak = rules.find((r) => r.name === LEAK);
  const quiet = rules.find((r) => r.name === QUIET);
  const intake = rules.find((r) => r.name === INTAKE);
  if (!leak || !quiet || !intake) return null;
  const error = inMinutes(form.error);
  const p = { error, idPrefix: 'rule' };
  // The members with a control here: an error on any of them shows beside it, any other under the form.
  const names = [
    path(LEAK, 'change'),
    path(LEAK, 'window_s'),
    path(QUIET, 'quiet_after_s'),
    path(INTAKE, 'drop_pct'),
    ...[LEAK, QUIET, INTAKE].map((r) => path(r, 'enabled')),
  ];
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="other-rules-title">
    <h2 id="other-rules-title">${w('title')}</h2>
    <p class="small muted">${w('help')}</p>
    <${RuleBox} rule=${leak} name=${LEAK} title=${w('leak')} error=${error} what=${w('leak_what')}>
      <div class="form-grid narrow">
        <${Field} name=${path(LEAK, 'change')} label=${w('falls_by')} type="number" step="any" inputmode="decimal"
          value=${-(leak.change ?? WATER_LEAK_RULE.change)} ...${p} />
        <${Field} name=${path(LEAK, 'window_s')} label=${w('within')} type="number" step="any" inputmode="decimal"
          value=${minutes(leak.window_s ?? WATER_LEAK_RULE.window_s)} ...${p} />
      </div>
      <p class="small muted">${w('leak_default', { points: -WATER_LEAK_RULE.change, minutes: minutes(WATER_LEAK_RULE.window_s) })}</p>
    </${RuleBox}>
    <${RuleBox} rule=${quiet} name=${QUIET} title=${w('quiet')} error=${error}
      what=${w('quiet_what', { factor: DEVICE_QUIET_RULE.factor, hours: DEVICE_QUIET_RULE.urgent_after_s / 3600 })}>
      <div class="form-grid inline">${Object.entries(quiet.quiet_after_s ?? {}).map(
        ([
          type,
          s,
        ]) => html`<${Field} key=${type} name=${path(QUIET, `quiet_after_s.${type}`)} label=${w('type_minutes', { type: typeName(type) })}
          type="number" step="any" inputmode="decimal" value=${minutes(s)} ...${p} />`,
      )}</div>
      <p class="small muted">${w('quiet_default', { minutes: minutes(DEVICE_QUIET_RULE.quiet_after_s), min: minutes(MIN_QUIET_AFTER_S), max: MAX_QUIET_AFTER_S / 86_400 })}</p>
    </${RuleBox}>
    <${RuleBox} rule=${intake} name=${INTAKE} title=${w('intake')} error=${error}
      what=${w('intake_what', { days: INTAKE_DROP_RULE.trailing_days, pct: INTAKE_DROP_RULE.recover_pct })}>
      <div class="form-grid narrow">${INTAKE_DROP_RULE.metrics.map(
        (m) => html`<${Field} key=${m.metric} name=${path(INTAKE, `drop_pct.${m.metric}`)}
          label=${w(m.metric === 'water.used_l' ? 'water_drop' : 'feed_drop')} type="number" step="any"
          inputmode="decimal" value=${intake.drop_pct?.[m.metric] ?? m.drop_pct} ...${p} />`,
      )}</div>
      <p class="small muted">${w('intake_default', { list: INTAKE_DROP_RULE.metrics.map((m) => w(m.metric === 'water.used_l' ? 'water_default' : 'feed_default', { pct: m.drop_pct })).join(', '), min: MIN_DROP_PCT, max: MAX_DROP_PCT })}</p>
    </${RuleBox}>
    <${Submit} form=${{ ...form, error }} label=${w('save')} names=${names} />
  </form>`;
}
