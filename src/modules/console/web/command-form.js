/**
 * A form for any device command, built from the catalog's parameter definitions (GET /v1/catalog): a
 * number picker for door and panel lists (with "all" where the command takes it), HH:MM or a keyword for
 * times, choices for enums, numbers with their bounds and unit. Before sending, the shared confirmation
 * rule (src/domain/confirmation.ts, the one MCP enforces) decides whether the person must confirm first.
 */
import { needsConfirmation } from '../../../domain/confirmation.ts';
import { api } from './api.js';
import { html, useEffect, useRef, useState } from './lib.js';
import { ErrorText, useLoad } from './ui.js';

/** The unit a number parameter is in, read from its name's suffix (the catalog names them so). */
export function unitOf(name) {
  if (name === 'meters_per_day') return 'm/day';
  if (name.endsWith('_deg')) return '°';
  if (name.endsWith('_c')) return '°C';
  if (name.endsWith('_pct')) return '%';
  if (name === 'kg' || name.endsWith('_kg')) return 'kg';
  if (name === 'mm' || name.endsWith('_mm')) return 'mm';
  return '';
}

const label = (name) => name.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase());

function NumberList({ spec, id, value, onChange }) {
  const numbers = [];
  for (let n = spec.min; n <= spec.max; n++) numbers.push(n);
  const all = value === 'all';
  const chosen = new Set(Array.isArray(value) ? value : []);
  const toggle = (n) => {
    const next = new Set(chosen);
    if (next.has(n)) next.delete(n);
    else next.add(n);
    onChange(next.size ? [...next].sort((a, b) => a - b) : undefined);
  };
  const item = spec.item ?? 'number';
  return html`<fieldset class="number-list" id=${id}>
    <legend>${label(spec.name)} ${!spec.required && html`<span class="muted">(optional)</span>`}</legend>
    ${
      spec.all &&
      html`<label class="chip all"><input type="checkbox" checked=${all}
      onChange=${(e) => onChange(e.currentTarget.checked ? 'all' : undefined)} /> All</label>`
    }
    ${numbers.map(
      (n) => html`<label class="chip"><input type="checkbox" checked=${all || chosen.has(n)} disabled=${all}
        aria-label=${`${item} ${n}`} onChange=${() => toggle(n)} />${n}</label>`,
    )}
  </fieldset>`;
}

function TimeField({ spec, id, value, onChange }) {
  const keywords = spec.keywords ?? [];
  const isKeyword = keywords.includes(value);
  const [mode, setMode] = useState(value === undefined ? 'unset' : isKeyword ? value : 'time');
  const pick = (next) => {
    setMode(next);
    onChange(next === 'unset' ? undefined : next === 'time' ? undefined : next);
  };
  return html`<div class="field">
    <label for=${id}>${label(spec.name)}</label>
    <div class="inline">
      <select id=${id} value=${mode} onChange=${(e) => pick(e.currentTarget.value)}>
        ${!spec.required && html`<option value="unset">Leave as it is</option>`}
        ${keywords.map((k) => html`<option value=${k}>${k}</option>`)}
        <option value="time">At a time…</option>
      </select>
      ${
        mode === 'time' &&
        html`<input type="time" aria-label=${`${label(spec.name)} time`} value=${isKeyword ? '' : (value ?? '')}
        onInput=${(e) => onChange(e.currentTarget.value || undefined)} />`
      }
    </div>
  </div>`;
}

/**
 * An `id` parameter named for a kind of farm record (`paddock_id`): a choice among the farm's records of that
 * kind, by name; a text box when the farm cannot list them.
 */
function IdField({ spec, id, value, onChange, farm }) {
  const kind = spec.name.replace(/_id$/, '');
  const records = useLoad(() => api('GET', `/v1/farms/${farm.id}/${kind}s?limit=100`), [farm.id, kind]);
  if (records.error || !records.data) {
    return html`<div class="field"><label for=${id}>${label(spec.name)}</label>
      <input id=${id} type="text" value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value || undefined)} />
      <small class="muted">${spec.description}</small></div>`;
  }
  return html`<div class="field"><label for=${id}>${label(kind)}</label>
    <select id=${id} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value || undefined)}>
      <option value="">Choose…</option>
      ${records.data.data.map((r) => html`<option value=${r.id}>${r.name ?? r.id}</option>`)}
    </select><small class="muted">${spec.description}</small></div>`;
}

function Field({ spec, id, value, onChange, farm }) {
  const hint = spec.description;
  if (spec.type === 'id' && spec.name.endsWith('_id')) {
    return html`<${IdField} spec=${spec} id=${id} value=${value} onChange=${onChange} farm=${farm} />`;
  }
  if (spec.type === 'integers')
    return html`<${NumberList} spec=${spec} id=${id} value=${value} onChange=${onChange} />`;
  if (spec.type === 'time')
    return html`<${TimeField} spec=${spec} id=${id} value=${value} onChange=${onChange} />`;
  if (spec.type === 'enum') {
    return html`<div class="field"><label for=${id}>${label(spec.name)}</label>
      <select id=${id} value=${value ?? ''} onChange=${(e) => onChange(e.currentTarget.value || undefined)}>
        ${!spec.required ? html`<option value="">Leave as it is</option>` : html`<option value="" disabled>Choose…</option>`}
        ${spec.enum.map((v) => html`<option value=${v}>${v}</option>`)}
      </select><small class="muted">${hint}</small></div>`;
  }
  if (spec.type === 'number' || spec.type === 'integer') {
    const unit = unitOf(spec.name);
    return html`<div class="field"><label for=${id}>${label(spec.name)}${unit && ` (${unit})`}</label>
      <input id=${id} type="number" inputmode="decimal" step=${spec.type === 'integer' ? 1 : 'any'}
        min=${spec.min ?? spec.exclusiveMin} max=${spec.max ?? spec.exclusiveMax} placeholder=${spec.default ?? ''}
        value=${value ?? ''} required=${spec.required}
        onInput=${(e) => onChange(e.currentTarget.value === '' ? undefined : Number(e.currentTarget.value))} />
      <small class="muted">${hint}</small></div>`;
  }
  if (spec.type === 'times') {
    return html`<div class="field"><label for=${id}>${label(spec.name)} (HH:MM, comma-separated)</label>
      <input id=${id} type="text" placeholder="06:30, 16:30" value=${Array.isArray(value) ? value.join(', ') : ''}
        onInput=${(e) => {
          const times = e.currentTarget.value
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean);
          onChange(times.length ? times : undefined);
        }} /><small class="muted">${hint}</small></div>`;
  }
  return html`<div class="field"><label for=${id}>${label(spec.name)}</label>
    <input id=${id} type="text" value=${value ?? ''} onInput=${(e) => onChange(e.currentTarget.value || undefined)} />
    <small class="muted">${hint}</small></div>`;
}

/** A modal question before a command that needs a person's confirmation; resolves true to send. */
function ConfirmDialog({ question, onAnswer }) {
  const ref = useRef(null);
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  return html`<dialog ref=${ref} class="confirm" aria-labelledby="confirm-title" onCancel=${() => onAnswer(false)}>
    <h2 id="confirm-title">Are you sure?</h2>
    <p>${question}</p>
    <div class="actions">
      <button type="button" class="button primary" onClick=${() => onAnswer(true)}>Yes, send it</button>
      <button type="button" class="button secondary" autofocus onClick=${() => onAnswer(false)}>Cancel</button>
    </div>
  </dialog>`;
}

function confirmQuestion(need, command, house, farm) {
  const what = `${command.description} (${house.name})`;
  if (need.reason === 'always')
    return `${command.caution ?? 'This command needs your confirmation.'} ${what}`;
  if (need.reason === 'no_coordinates') {
    return `${command.caution ?? ''} ${farm.name} has no coordinates, so Farmstead cannot tell whether it is dark. ${what}`;
  }
  return `It is dark at ${farm.name} now. ${command.caution ?? ''} ${what}`;
}

/** The command picker and form for one device; `onSent(command)` after the API accepted it. */
export function CommandForm({ device, farm, commands, onSent, idPrefix }) {
  const [name, setName] = useState('');
  const [params, setParams] = useState({});
  const [question, setQuestion] = useState(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [done, setDone] = useState(null);
  const command = commands.find((c) => c.name === name);

  const send = async () => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const sent = await api('POST', `/v1/devices/${device.id}/commands`, { command: name, params });
      setDone(`${name} ${sent.status}`);
      onSent(sent);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const submit = (event) => {
    event.preventDefault();
    if (!command) {
      setError({ message: 'Choose a command first.' });
      return;
    }
    const need = needsConfirmation(name, params, {
      farm: { timezone: farm.timezone, lat: farm.lat, lon: farm.lon },
      at: Date.now(),
    });
    if (need) setQuestion(confirmQuestion(need, command, device, farm));
    else send();
  };

  const answer = (yes) => {
    setQuestion(null);
    if (yes) send();
    else setDone('Not sent.');
  };

  const pickId = `${idPrefix}-command`;
  return html`<form class="command-form" onSubmit=${submit}>
    <div class="field">
      <label for=${pickId}>Send a command</label>
      <select id=${pickId} value=${name} onChange=${(e) => {
        setName(e.currentTarget.value);
        setParams({});
        setError(null);
        setDone(null);
      }}>
        <option value="">Choose a command…</option>
        ${commands.map((c) => html`<option value=${c.name}>${c.name} — ${c.description}</option>`)}
      </select>
    </div>
    ${command?.caution && html`<p class="caution">${command.caution}</p>`}
    ${command?.params.map(
      (
        spec,
      ) => html`<${Field} key=${`${name}-${spec.name}`} spec=${spec} id=${`${idPrefix}-${spec.name}`} farm=${farm}
        value=${params[spec.name]} onChange=${(v) => {
          const next = { ...params };
          if (v === undefined) delete next[spec.name];
          else next[spec.name] = v;
          setParams(next);
        }} />`,
    )}
    <div class="actions">
      <button type="submit" class="button primary" disabled=${busy || !command}>${busy ? 'Sending…' : 'Send'}</button>
      ${done && html`<span class="done" role="status">${done}</span>`}
    </div>
    <${ErrorText} error=${error} />
    ${question && html`<${ConfirmDialog} question=${question} onAnswer=${answer} />`}
  </form>`;
}
