/**
 * The settings page's panel for the built-in rules that are not thresholds: water dropping fast
 * (water.leak), devices gone quiet (device.quiet) and a group's intake drop (group.intake_drop). It shows
 * each as the farm has it (GET /v1/farms/{farm}/rules) beside the catalog's defaults, in the units a
 * farmer thinks in (points, minutes, percent), and saves through the farm's settings.rules like the
 * thresholds table; the API's error shows on the field it names.
 */
import {
  MAX_DROP_PCT,
  MAX_QUIET_AFTER_S,
  MAX_WINDOW_S,
  MIN_DROP_PCT,
  MIN_QUIET_AFTER_S,
  MIN_WINDOW_S,
} from '../../../../domain/built-in-rules.ts';
import { api } from '../api.js';
import { errorFor, Field, Submit, useForm } from '../form.js';
import { html } from '../lib.js';
import { state, update, useStore } from '../store.js';
import { ErrorText, Loading, useLoad } from '../ui.js';

const LEAK = 'water.leak';
const QUIET = 'device.quiet';
const INTAKE = 'group.intake_drop';
const OWN = new Set([LEAK, QUIET, INTAKE]);
const path = (rule, member) => `settings.rules.${rule}.${member}`;

/** A typed number, scaled (minutes → seconds); blank is the default; anything else goes as typed, so the API names it. */
function typed(data, name, fallback, scale = 1) {
  const raw = String(data.get(name) ?? '').trim();
  if (raw === '') return fallback;
  const n = Number(raw);
  return Number.isFinite(n) ? Math.round(n * scale * 1000) / 1000 : raw;
}

/** settings.rules for the three rules from the form: only what differs from the defaults, so defaults move with the catalog. */
function readRules(data, defaults, own) {
  const rules = {};
  const leak = {};
  const fall = typed(data, path(LEAK, 'change'), -defaults.leak.change);
  if (fall !== -defaults.leak.change) leak.change = typeof fall === 'number' ? -Math.abs(fall) : fall;
  const window = typed(data, path(LEAK, 'window_s'), defaults.leak.window_s, 60);
  if (window !== defaults.leak.window_s) leak.window_s = window;
  // for_s has no control here; it is kept as the farm set it (through the API).
  if (own[LEAK]?.for_s !== undefined) leak.for_s = own[LEAK].for_s;
  if (!data.get(path(LEAK, 'enabled'))) leak.enabled = false;
  if (Object.keys(leak).length > 0) rules[LEAK] = leak;

  const quiet = {};
  const after = {};
  for (const type of Object.keys(defaults.quietTypes)) {
    const s = typed(data, path(QUIET, `quiet_after_s.${type}`), defaults.quiet.quiet_after_s, 60);
    if (s !== defaults.quiet.quiet_after_s) after[type] = s;
  }
  if (Object.keys(after).length > 0) quiet.quiet_after_s = after;
  if (!data.get(path(QUIET, 'enabled'))) quiet.enabled = false;
  if (Object.keys(quiet).length > 0) rules[QUIET] = quiet;

  const intake = {};
  const drops = {};
  for (const m of defaults.intake.metrics) {
    const pct = typed(data, path(INTAKE, `drop_pct.${m.metric}`), m.drop_pct);
    if (pct !== m.drop_pct) drops[m.metric] = pct;
  }
  if (Object.keys(drops).length > 0) intake.drop_pct = drops;
  if (!data.get(path(INTAKE, 'enabled'))) intake.enabled = false;
  if (Object.keys(intake).length > 0) rules[INTAKE] = intake;
  return rules;
}

function OnOff({ rule, on, error }) {
  const id = `rule-${rule}-enabled`;
  return html`<label class="rule-toggle" for=${id}>
    <input type="checkbox" id=${id} name=${path(rule, 'enabled')} value="on" defaultChecked=${on} />On</label>
    <${ErrorText} error=${errorFor(error, path(rule, 'enabled'))} />`;
}

/** One rule as a fieldset: its title and switch, a sentence saying what it does, its settings. */
function RuleBox({ rule, title, what, error, children }) {
  return html`<fieldset class="rule-box" id=${`rule-${rule.name}`}>
    <legend><span>${title}</span> <span class="small muted">${rule.name}</span></legend>
    <${OnOff} rule=${rule.name} on=${rule.enabled} error=${error} />
    <p class="small muted">${what}</p>
    ${children}
  </fieldset>`;
}

const minutes = (s) => Math.round((s / 60) * 100) / 100;

/** A span of seconds as a farmer says it: days, hours or minutes. */
function span(s) {
  if (s % 86_400 === 0) return s === 86_400 ? '1 day' : `${s / 86_400} days`;
  if (s % 3600 === 0) return s === 3600 ? '1 hour' : `${s / 3600} hours`;
  return `${minutes(s)} minutes`;
}

/**
 * The API checks these fields in seconds while the form asks for minutes: its error on one is said again
 * in minutes (what was typed, and the range), still on the field it names.
 */
function inMinutes(error) {
  const param = error?.param ?? '';
  const bounds = param.startsWith(path(QUIET, 'quiet_after_s.'))
    ? [MIN_QUIET_AFTER_S, MAX_QUIET_AFTER_S]
    : param === path(LEAK, 'window_s')
      ? [MIN_WINDOW_S, MAX_WINDOW_S]
      : null;
  if (!bounds) return error;
  const got = /got (-?[\d.]+)/.exec(error.message ?? '');
  const typedIn = got ? ` (you entered ${minutes(Number(got[1]))} minutes)` : '';
  return { ...error, message: `Enter a time from ${span(bounds[0])} to ${span(bounds[1])}${typedIn}.` };
}

/** The built-in water, silence and intake rules of a farm, edited in farmers' units. */
export function BuiltInRules({ farm }) {
  const { catalog } = useStore();
  const listed = useLoad(() => api('GET', `/v1/farms/${farm.id}/rules`), [farm.id]);
  const byName = (list, name) => list.find((r) => r.name === name);
  const defaults = {
    leak: byName(catalog.rules, LEAK),
    quiet: byName(catalog.rules, QUIET),
    intake: byName(catalog.rules, INTAKE),
  };
  const form = useForm(async (data) => {
    const own = farm.settings?.rules ?? {};
    // The threshold rules' overrides are kept as they are (the thresholds table edits them).
    const rules = Object.fromEntries(Object.entries(own).filter(([name]) => !OWN.has(name)));
    const current = byName(listed.data.data, QUIET);
    Object.assign(rules, readRules(data, { ...defaults, quietTypes: current.quiet_after_s }, own));
    const saved = await api('PATCH', `/v1/farms/${farm.id}`, {
      settings: { rules: Object.keys(rules).length > 0 ? rules : null },
    });
    update({ farms: state.farms.map((f) => (f.id === saved.id ? saved : f)) });
    listed.reload();
    return 'Rules saved';
  });
  if (!listed.data) return html`<${Loading} error=${listed.error} retry=${listed.reload} />`;
  const rules = listed.data.data;
  const leak = byName(rules, LEAK);
  const quiet = byName(rules, QUIET);
  const intake = byName(rules, INTAKE);
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
    <h2 id="other-rules-title">Water, silence and intake alerts</h2>
    <p class="small muted">Blank means the default. Turning a rule off also resolves the alerts it has open.</p>
    <${RuleBox} rule=${leak} title="Water dropping fast" error=${error}
      what="A tank or trough on a water device or house falls fast: a burst line, a stuck valve, a tipped trough.">
      <div class="form-grid narrow">
        <${Field} name=${path(LEAK, 'change')} label="Falls by (points)" type="number" step="any" inputmode="decimal"
          value=${-leak.change} ...${p} />
        <${Field} name=${path(LEAK, 'window_s')} label="Within (minutes)" type="number" step="any" inputmode="decimal"
          value=${minutes(leak.window_s)} ...${p} />
      </div>
      <p class="small muted">Default: ${-defaults.leak.change} points within ${minutes(defaults.leak.window_s)} minutes.</p>
    </${RuleBox}>
    <${RuleBox} rule=${quiet} title="Device quiet" error=${error}
      what=${`No report for ${defaults.quiet.factor} times a device's usual interval, and at least this long. Houses and guardians become urgent after ${defaults.quiet.urgent_after_s / 3600} hours.`}>
      <div class="form-grid inline">${Object.entries(quiet.quiet_after_s).map(
        ([
          type,
          s,
        ]) => html`<${Field} key=${type} name=${path(QUIET, `quiet_after_s.${type}`)} label=${`${type} (minutes)`}
          type="number" step="any" inputmode="decimal" value=${minutes(s)} ...${p} />`,
      )}</div>
      <p class="small muted">${`Default: ${minutes(defaults.quiet.quiet_after_s)} minutes for every type. Any from ${minutes(MIN_QUIET_AFTER_S)} minutes to ${MAX_QUIET_AFTER_S / 86_400} days.`}</p>
    </${RuleBox}>
    <${RuleBox} rule=${intake} title="Intake dropped" error=${error}
      what=${`A group with a head count drank or ate less per head yesterday than its own ${defaults.intake.trailing_days}-day median. It resolves when a day is back within ${defaults.intake.recover_pct} %.`}>
      <div class="form-grid narrow">${defaults.intake.metrics.map(
        (m) => html`<${Field} key=${m.metric} name=${path(INTAKE, `drop_pct.${m.metric}`)}
          label=${`${m.metric === 'water.used_l' ? 'Water' : 'Feed'} per head drops (%)`} type="number" step="any"
          inputmode="decimal" value=${intake.drop_pct[m.metric]} ...${p} />`,
      )}</div>
      <p class="small muted">${`Default: ${defaults.intake.metrics.map((m) => `${m.drop_pct} % for ${m.metric}`).join(', ')}. Any above ${MIN_DROP_PCT} % and up to ${MAX_DROP_PCT} %.`}</p>
    </${RuleBox}>
    <${Submit} form=${{ ...form, error }} label="Save rules" names=${names} />
  </form>`;
}
