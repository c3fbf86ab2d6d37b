/**
 * A form for any device command, built from the catalog's parameter definitions (GET /v1/catalog): a
 * number picker for door and panel lists (with "all" where the command takes it), HH:MM or a keyword for
 * times, choices for enums, numbers with their bounds and unit in the reader's units (sent in the catalog's).
 * Its words (titles, labels, hints, cautions) are the reader's language (src/domain/command-terms.ts); only a
 * command the product does not know shows its registry's own descriptions.
 * Before sending, the shared confirmation rule (src/domain/confirmation.ts, the one MCP enforces) decides
 * whether the person must confirm first.
 */

import type { CatalogCommand } from '../../../domain/catalog.ts';
import type { ParamSpec } from '../../../domain/command-params.ts';
import {
  commandCaution,
  commandTitle,
  paramHint,
  paramTitle,
  valueTitle,
} from '../../../domain/command-terms.ts';
import type { ConfirmationNeed } from '../../../domain/confirmation.ts';
import { parseTypedNumber } from '../../../domain/display-units.ts';
import { api, type Problem, type Schema } from './api.ts';
import { entered, type MessageKey, qty, reader, shown, t, unitLabel } from './i18n.ts';
import { html, inputValue, useEffect, useRef, useState } from './lib.ts';
import { useOffline } from './offline.ts';
import type { Farm } from './store.ts';
import { ErrorText, problemOf, useLoad } from './ui.ts';

/** A parameter's value as the form holds it (what the API takes for its type). */
type Value = number | string | number[] | string[] | undefined;

interface FieldProps {
  /** The command the parameter belongs to (its words are the command's). */
  command: string;
  spec: ParamSpec;
  id: string;
  value: Value;
  onChange(value: Value): void;
  farm: Farm;
}

/** A parameter's name in the reader's words (src/domain/command-terms.ts, as the command history says it). */
const label = (command: string, name: string) => paramTitle(reader.language, command, name);
/** A parameter's hint in the reader's words, or none where its field says enough. */
const hintOf = (command: string, spec: ParamSpec) =>
  paramHint(reader.language, command, spec.name, spec.description);
/** A hint under a field, when there is one. */
const Hint = ({ text }: { text: string | null | false }) =>
  text && html`<small class="muted">${text}</small>`;

/** A parameter's choice or keyword in the reader's words ("automático", "al amanecer"). */
const choice = (command: string, name: string, value: string) =>
  valueTitle(reader.language, command, name, value);

function NumberList({ command, spec, id, value, onChange }: Omit<FieldProps, 'farm'>) {
  const numbers: number[] = [];
  for (let n = spec.min ?? 1; n <= (spec.max ?? 0); n++) numbers.push(n);
  const all = value === 'all';
  const chosen = new Set(Array.isArray(value) ? (value as number[]) : []);
  const toggle = (n: number) => {
    const next = new Set(chosen);
    if (next.has(n)) next.delete(n);
    else next.add(n);
    onChange(next.size ? [...next].sort((a, b) => a - b) : undefined);
  };
  const item = spec.item ?? 'number';
  return html`<fieldset class="number-list" id=${id}>
    <legend>${label(command, spec.name)} ${!spec.required && html`<span class="muted">${t('command.optional')}</span>`}</legend>
    ${
      spec.all &&
      html`<label class="chip all"><input type="checkbox" checked=${all}
      onChange=${(e: Event) => onChange((e.currentTarget as HTMLInputElement).checked ? 'all' : undefined)} /> ${t('command.all')}</label>`
    }
    ${numbers.map(
      (n) => html`<label class="chip"><input type="checkbox" checked=${all || chosen.has(n)} disabled=${all}
        aria-label=${`${item} ${n}`} onChange=${() => toggle(n)} />${n}</label>`,
    )}
  </fieldset>`;
}

function TimeField({ command, spec, id, value, onChange }: Omit<FieldProps, 'farm'>) {
  const keywords = spec.keywords ?? [];
  const isKeyword = typeof value === 'string' && keywords.includes(value);
  const [mode, setMode] = useState<string>(
    value === undefined ? 'unset' : isKeyword ? String(value) : 'time',
  );
  const pick = (next: string) => {
    setMode(next);
    onChange(next === 'unset' ? undefined : next === 'time' ? undefined : next);
  };
  return html`<div class="field">
    <label for=${id}>${label(command, spec.name)}</label>
    <div class="inline">
      <select id=${id} value=${mode} onChange=${(e: Event) => pick(inputValue(e))}>
        ${!spec.required && html`<option value="unset">${t('command.leave')}</option>`}
        ${keywords.map((k) => html`<option value=${k}>${choice(command, spec.name, k)}</option>`)}
        <option value="time">${t('command.at_time')}</option>
      </select>
      ${
        mode === 'time' &&
        html`<input type="time" aria-label=${t('command.time_of', { name: label(command, spec.name) })} value=${isKeyword ? '' : (value ?? '')}
        onInput=${(e: Event) => onChange(inputValue(e) || undefined)} />`
      }
    </div>
  </div>`;
}

/** A catalog number as the reader types it, in their unit (24 °C as 75.2 in °F), '' for none. */
function typedNumber(value: number | undefined, unit: string | undefined): string {
  if (value === undefined) return '';
  return String(unit ? Math.round(shown(value, unit) * 100) / 100 : value);
}

/**
 * A number in the reader's unit (the registry's unit, `spec.unit`, shown as °F, lb or in for a US reader),
 * held and sent in the catalog's: what they type is converted back, as the thresholds table does; the
 * default typed as shown is the default itself (no drift from converting back and forth). The bounds are
 * the reader's too, and the hint gives the range in their units and locale (the catalog's description is
 * written in English and catalog units, for API readers) with the command's words for what else it needs.
 */
function NumberField({ command, spec, id, value, onChange }: Omit<FieldProps, 'farm'>) {
  const unit = spec.unit;
  const [typed, setTyped] = useState(() => typedNumber(typeof value === 'number' ? value : undefined, unit));
  const converted = unit !== undefined && unitLabel(unit) !== unit;
  const low = spec.min ?? spec.exclusiveMin;
  const high = spec.max ?? spec.exclusiveMax;
  // The range in the reader's units and locale, then the command's words for what the field does not say.
  const range = low !== undefined && high !== undefined ? `${qty(low, unit)} – ${qty(high, unit)}` : null;
  const words = hintOf(command, spec);
  const hint = [range, words].filter(Boolean).join('. ');
  const change = (text: string) => {
    setTyped(text);
    const n = parseTypedNumber(text, reader.locale);
    if (text === '') onChange(undefined);
    else if (!Number.isFinite(n)) onChange(text as unknown as number);
    else if (!unit) onChange(n);
    else if (typeof spec.default === 'number' && text === typedNumber(spec.default, unit))
      onChange(spec.default);
    else {
      const catalog = Math.round(entered(n, unit) * 1000) / 1000;
      onChange(spec.type === 'integer' ? Math.round(catalog) : catalog);
    }
  };
  return html`<div class="field"><label for=${id}>${label(command, spec.name)}${unit && ` (${unitLabel(unit)})`}</label>
    <input id=${id} type="text" autocomplete="off" inputmode=${spec.type === 'integer' && !converted ? 'numeric' : 'decimal'}
      placeholder=${typeof spec.default === 'number' ? typedNumber(spec.default, unit) : (spec.default ?? '')}
      value=${typed} required=${spec.required} onInput=${(e: Event) => change(inputValue(e))} />
    <${Hint} text=${hint} /></div>`;
}

/**
 * An `id` parameter named for a kind of farm record (`paddock_id`): a choice among the farm's records of that
 * kind, by name; a text box when the farm cannot list them.
 */
function IdField({ command, spec, id, value, onChange, farm }: FieldProps) {
  const kind = spec.name.replace(/_id$/, '');
  const records = useLoad(() => recordsOf(kind, farm.id), [farm.id, kind]);
  if (records.error || !records.data) {
    return html`<div class="field"><label for=${id}>${label(command, spec.name)}</label>
      <input id=${id} type="text" value=${value ?? ''} onInput=${(e: Event) => onChange(inputValue(e) || undefined)} />
      <${Hint} text=${hintOf(command, spec)} /></div>`;
  }
  return html`<div class="field"><label for=${id}>${label(command, spec.name)}</label>
    <select id=${id} value=${value ?? ''} onChange=${(e: Event) => onChange(inputValue(e) || undefined)}>
      <option value="">${t('command.choose')}</option>
      ${records.data.map((r) => html`<option value=${r.id}>${r.name ?? r.id}</option>`)}
    </select><${Hint} text=${hintOf(command, spec)} /></div>`;
}

function Field({ command, spec, id, value, onChange, farm }: FieldProps) {
  const hint = hintOf(command, spec);
  if (spec.type === 'id' && spec.name.endsWith('_id')) {
    return html`<${IdField} command=${command} spec=${spec} id=${id} value=${value} onChange=${onChange} farm=${farm} />`;
  }
  if (spec.type === 'integers')
    return html`<${NumberList} command=${command} spec=${spec} id=${id} value=${value} onChange=${onChange} />`;
  if (spec.type === 'time')
    return html`<${TimeField} command=${command} spec=${spec} id=${id} value=${value} onChange=${onChange} />`;
  if (spec.type === 'enum') {
    return html`<div class="field"><label for=${id}>${label(command, spec.name)}</label>
      <select id=${id} value=${value ?? ''} onChange=${(e: Event) => onChange(inputValue(e) || undefined)}>
        ${!spec.required ? html`<option value="">${t('command.leave')}</option>` : html`<option value="" disabled>${t('command.choose')}</option>`}
        ${(spec.enum ?? []).map((v) => html`<option value=${v}>${choice(command, spec.name, v)}</option>`)}
      </select><${Hint} text=${hint} /></div>`;
  }
  if (spec.type === 'number' || spec.type === 'integer')
    return html`<${NumberField} command=${command} spec=${spec} id=${id} value=${value} onChange=${onChange} />`;
  if (spec.type === 'times') {
    return html`<div class="field"><label for=${id}>${t('command.times', { name: label(command, spec.name) })}</label>
      <input id=${id} type="text" placeholder="06:30, 16:30" value=${Array.isArray(value) ? value.join(', ') : ''}
        onInput=${(e: Event) => {
          const times = inputValue(e)
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
          onChange(times.length ? times : undefined);
        }} /><${Hint} text=${hint} /></div>`;
  }
  return html`<div class="field"><label for=${id}>${label(command, spec.name)}</label>
    <input id=${id} type="text" value=${value ?? ''} onInput=${(e: Event) => onChange(inputValue(e) || undefined)} />
    <${Hint} text=${hint} /></div>`;
}

/** The farm's records of a kind a command parameter names (paddocks, groups), by name. */
async function recordsOf(kind: string, farm: string): Promise<{ id: string; name: string | null }[]> {
  const request = { path: { farm }, query: { limit: 100 } };
  if (kind === 'paddock') return (await api('GET', '/v1/farms/{farm}/paddocks', request)).data;
  if (kind === 'group') return (await api('GET', '/v1/farms/{farm}/groups', request)).data;
  if (kind === 'animal') return (await api('GET', '/v1/farms/{farm}/animals', request)).data;
  throw new Error(`No list of ${kind}s`);
}

/** A modal question before a command that needs a person's confirmation; resolves true to send. */
function ConfirmDialog({ question, onAnswer }: { question: string; onAnswer(yes: boolean): void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby="confirm-title" onCancel=${() => onAnswer(false)}>
    <h2 id="confirm-title">${t('command.sure')}</h2>
    <p>${question}</p>
    <div class="actions">
      <button type="button" class="button primary" onClick=${() => onAnswer(true)}>${t('command.yes_send')}</button>
      <button type="button" class="button secondary" autofocus onClick=${() => onAnswer(false)}>${t('command.cancel')}</button>
    </div>
  </dialog>`;
}

function confirmQuestion(
  need: ConfirmationNeed,
  command: CatalogCommand,
  house: { name: string },
  farm: Farm,
): string {
  const what = t('command.what', { command: commandTitle(reader.language, command.name), house: house.name });
  const caution = commandCaution(reader.language, command.name, command.caution) ?? '';
  if (need.reason === 'always') return `${caution || t('command.confirm')} ${what}`;
  if (need.reason === 'no_coordinates') {
    return `${caution} ${t('command.no_coordinates', { farm: farm.name })} ${what}`.trim();
  }
  return `${t('command.dark', { farm: farm.name })} ${caution} ${what}`;
}

/** The command picker and form for one device; `onSent(command)` after the API accepted it. */
export function CommandForm({
  device,
  farm,
  commands,
  onSent,
  idPrefix,
}: {
  device: { id: string; name: string };
  farm: Farm;
  commands: readonly CatalogCommand[];
  onSent(command: Schema<'Command'>): void;
  idPrefix: string;
}) {
  const [name, setName] = useState('');
  const [params, setParams] = useState<Record<string, Value>>({});
  const [question, setQuestion] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const command = commands.find((c) => c.name === name);
  const caution = command && commandCaution(reader.language, command.name, command.caution);
  // Never queued: a door opened hours later, when the signal returns, is dangerous (docs/offline.md).
  const { online } = useOffline();

  const send = async () => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      // The catalog's parameters build `params` (the API checks them against the same specs).
      const body = { command: name, params } as Schema<'CommandRequest'>;
      const sent = await api('POST', '/v1/devices/{id}/commands', { path: { id: device.id }, body });
      setDone(
        t('command.sent', {
          command: commandTitle(reader.language, name),
          status: t(`command_status.${sent.status}` as MessageKey),
        }),
      );
      onSent(sent);
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setBusy(false);
    }
  };

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!command) {
      setError({ message: t('command.choose_first') });
      return;
    }
    // The rule (and the sun's position it may need) loads with the first command sent, not with the page.
    let need: ConfirmationNeed | null;
    try {
      const { needsConfirmation } = await import('../../../domain/confirmation.ts');
      need = needsConfirmation(name, params, {
        farm: { timezone: farm.timezone, lat: farm.lat, lon: farm.lon },
        at: Date.now(),
      });
    } catch (err) {
      setError(problemOf(err));
      return;
    }
    if (need) setQuestion(confirmQuestion(need, command, device, farm));
    else send();
  };

  const answer = (yes: boolean) => {
    setQuestion(null);
    if (yes) send();
    else setDone(t('command.not_sent'));
  };

  const pickId = `${idPrefix}-command`;
  return html`<form class="command-form" onSubmit=${submit}>
    <div class="field">
      <label for=${pickId}>${t('command.send_a')}</label>
      <select id=${pickId} value=${name} onChange=${(e: Event) => {
        setName(inputValue(e));
        setParams({});
        setError(null);
        setDone(null);
      }}>
        <option value="">${t('command.choose_command')}</option>
        ${commands.map((c) => html`<option value=${c.name}>${commandTitle(reader.language, c.name)}</option>`)}
      </select>
    </div>
    ${caution && html`<p class="caution">${caution}</p>`}
    ${command?.params.map(
      (
        spec,
      ) => html`<${Field} key=${`${name}-${spec.name}`} command=${name} spec=${spec} id=${`${idPrefix}-${spec.name}`} farm=${farm}
        value=${params[spec.name]} onChange=${(v: Value) => {
          const next = { ...params };
          if (v === undefined) delete next[spec.name];
          else next[spec.name] = v;
          setParams(next);
        }} />`,
    )}
    ${!online && html`<p class="caution" role="status">${t('command.offline')}</p>`}
    <div class="actions">
      <button type="submit" class="button primary" disabled=${busy || !command || !online}>${busy ? t('command.sending') : t('command.send')}</button>
      ${done && html`<span class="done" role="status">${done}</span>`}
    </div>
    <${ErrorText} error=${error} />
    ${question && html`<${ConfirmDialog} question=${question} onAnswer=${answer} />`}
  </form>`;
}
