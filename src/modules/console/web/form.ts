/**
 * Record forms: a field per record member, the API's error shown beside the field it names (`param`), or
 * under the form when it names none. `useForm(submit)` reads the form, calls the API, and keeps the state.
 */
import { COMMON_SPECIES, speciesWord } from '../../../domain/animal-terms.ts';
import { parseTypedNumber } from '../../../domain/display-units.ts';
import type { Problem } from './api.ts';
import { reader, t } from './i18n.ts';
import { html, type Markup, useState } from './lib.ts';
import { ErrorText, problemOf } from './ui.ts';

export interface FormState {
  busy: boolean;
  error: Problem | null;
  done: Markup;
}

/** An error the page raises for a check of its own, on the field it names (as the API's `param` does). */
export function fieldError(message: string, param?: string): Problem {
  return Object.assign(new Error(message), { param });
}

/**
 * Form state: `busy`, `error` (an ApiError, or an Error the page throws for a check of its own), `done`
 * (what `submit` returns to show: a short sentence or markup, such as a link to what was made), and
 * `onSubmit` for the <form>; `submit` gets the FormData and the form. Unlike useAction (ui.ts), `done` may
 * be markup, so the two stay apart.
 */
export function useForm(submit: (data: FormData, form: HTMLFormElement) => Promise<unknown>) {
  const [state, setState] = useState<FormState>({ busy: false, error: null, done: null });
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setState({ busy: true, error: null, done: null });
    try {
      const done = await submit(new FormData(form), form);
      // What submit returns is text or htm markup to show (or nothing).
      setState({ busy: false, error: null, done: (done as Markup) || null });
    } catch (error) {
      setState({ busy: false, error: problemOf(error), done: null });
    }
  };
  return { ...state, onSubmit };
}

/** The error belongs to this field when its `param` names the field (or a member inside it). */
export function errorFor(error: Problem | null | undefined, name: string): Problem | null {
  if (!error?.param) return null;
  return error.param === name || error.param.startsWith(`${name}.`) || error.param.startsWith(`${name}[`)
    ? error
    : null;
}

/** The form's error when no field shows it. */
export function formError(error: Problem | null | undefined, names: readonly string[]): Problem | null {
  if (!error) return null;
  return names.some((n) => errorFor(error, n)) ? null : error;
}

type Option = string | readonly [string, string];

/**
 * One labelled field, uncontrolled: `value` is only its starting value (`defaultValue`), so a re-render (a
 * busy state, an error from the API) never puts back what the person had typed over. `type` is an input
 * type, `select` (with `options`: values or [value, label] pairs) or `textarea`. The id is `${idPrefix}-${name}` so labels and errors belong to the right control.
 */
export function Field({
  name,
  label,
  type = 'text',
  value,
  required,
  error,
  options,
  idPrefix = 'f',
  ...rest
}: {
  name: string;
  label: string;
  type?: string;
  value?: string | number | null | undefined;
  required?: boolean;
  error?: Problem | null | undefined;
  options?: readonly Option[];
  idPrefix?: string | undefined;
  [attribute: string]: unknown;
}) {
  const id = `${idPrefix}-${name}`;
  const own = errorFor(error, name);
  const errorId = own ? `${id}-error` : undefined;
  let control: Markup;
  if (type === 'select') {
    control = html`<select id=${id} name=${name} required=${required} aria-describedby=${errorId} aria-invalid=${own ? 'true' : undefined}>
      ${(options ?? []).map((o) => {
        const [v, text] = typeof o === 'string' ? [o, o] : o;
        return html`<option value=${v} selected=${String(value ?? '') === String(v)}>${text}</option>`;
      })}
    </select>`;
  } else if (type === 'textarea') {
    control = html`<textarea id=${id} name=${name} rows="3" defaultValue=${value ?? ''} aria-describedby=${errorId}
      aria-invalid=${own ? 'true' : undefined}></textarea>`;
  } else {
    // Text: a number field dropped a decimal comma (docs/console.md).
    const numeric = type === 'number';
    control = html`<input id=${id} name=${name} type=${numeric ? 'text' : type} inputmode=${numeric ? 'decimal' : undefined}
      defaultValue=${value ?? ''} required=${required}
      aria-describedby=${errorId} aria-invalid=${own ? 'true' : undefined} ...${rest} />`;
  }
  return html`<div class="field"><label for=${id}>${label}</label>${control}<${ErrorText} error=${own} id=${errorId} label=${label} /></div>`;
}

/**
 * The species a species field suggests (`list=${id}` on the field): the stored word as the value, the
 * reader's word as its label ("sheep", shown as "ovino"). One list for every form that asks for a species.
 */
export function SpeciesList({ id }: { id: string }) {
  return html`<datalist id=${id}>${COMMON_SPECIES.map(
    (s) => html`<option value=${s} label=${speciesWord(reader.language, s)} />`,
  )}</datalist>`;
}

/** The submit button and the form-level result or error. */
export function Submit({
  form,
  label,
  names = [],
}: {
  form: FormState;
  label: string;
  names?: readonly string[];
}) {
  return html`<div class="actions">
    <button type="submit" class="button primary" disabled=${form.busy} aria-busy=${form.busy}>${form.busy ? `${label}…` : label}</button>
    ${form.done && html`<span class="done" role="status">${form.done}</span>`}
  </div>
  <${ErrorText} error=${formError(form.error, names)} />`;
}

/** A text value, null when blank (the API's way to clear a member), undefined when the form has no such field. */
export function text(data: FormData, name: string): string | null | undefined {
  const value = data.get(name);
  if (value === null) return undefined;
  const trimmed = String(value).trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * A number as typed ("20,5" in Spanish), or null when blank; a value that is not a number is sent as given, so the API names it (the
 * type says number: the API's answer to the rest is the error shown).
 */
export function number(data: FormData, name: string): number | null | undefined {
  const value = text(data, name);
  if (value === null || value === undefined) return value;
  const n = parseTypedNumber(value, reader.locale);
  return Number.isFinite(n) ? n : (value as unknown as number);
}

/** A date (YYYY-MM-DD) as the API takes it, or null when blank. */
export function date(data: FormData, name: string): string | null | undefined {
  return text(data, name);
}

/** A datetime-local value as an ISO time (the browser's time zone), or null when blank. */
export function dateTime(data: FormData, name: string): string | null | undefined {
  const value = text(data, name);
  if (!value) return value;
  const parsed = new Date(value);
  return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString();
}

/** YYYY-MM-DD of an ISO time (UTC), for a date input. */
export function dayOf(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '';
}

/** A datetime-local input's value (local time) of an ISO time. */
export function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A button that copies text to the clipboard and says so. */
export function CopyButton({ value, label = t('form.copy') }: { value: string; label?: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone(t('form.copied'));
    } catch {
      setDone(t('form.copy_failed'));
    }
  };
  return html`<span class="action"><button type="button" class="button secondary" onClick=${copy}>${label}</button>
    ${done && html`<span class="done" role="status">${done}</span>`}</span>`;
}

/** A secret shown once (device key, API key, signing secret) with a copy button. */
export function ShownOnce({ title, value, children }: { title: string; value: string; children?: unknown }) {
  return html`<div class="shown-once" role="status">
    <p><strong>${title}</strong> — ${t('form.shown_once')}</p>
    <div class="secret-row"><input readonly value=${value} aria-label=${title}
      onFocus=${(e: FocusEvent) => (e.currentTarget as HTMLInputElement).select()} />
      <${CopyButton} value=${value} /></div>
    ${children}
  </div>`;
}
