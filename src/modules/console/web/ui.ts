/**
 * Small shared pieces: readable errors beside the control that caused them, buttons that show they are
 * working and what happened, a polite announcement line for screen readers, and time and number formats.
 */
import type { Problem } from './api.ts';
import { apiErrorText, momentOf, reader, t } from './i18n.ts';
import { html, useCallback, useEffect, useState } from './lib.ts';

/** An error next to its control (announced); not in English, an API error's words by code (apiErrorText). */
export function ErrorText({
  error,
  id,
  label,
  text,
}: {
  error: Problem | null | undefined;
  id?: string | undefined;
  label?: string | undefined;
  text?: string | undefined;
}) {
  if (!error) return null;
  const own = error.code && apiErrorText(error.code, label);
  if (!own) return html`<p class="error" role="alert" id=${id}>${text ?? error.message ?? String(error)}</p>`;
  return html`<p class="error" role="alert" id=${id}>${own}</p>
    <details class="said"><summary>${t('api.details')}</summary>${error.message}</details>`;
}

/** What went wrong, as a Problem to show (an ApiError is one; anything else thrown is said as text). */
export function problemOf(error: unknown): Problem {
  if (error instanceof Error) return error as Problem;
  if (error && typeof error === 'object' && typeof (error as Problem).message === 'string') {
    return error as Problem;
  }
  return { message: String(error) };
}

interface ActionState {
  busy: boolean;
  error: Problem | null;
  done: string | null;
}

/**
 * Runs an async action for a control: `busy` while it runs, `error` when it failed, `done` (a short
 * sentence) when it worked. `run` never rejects, so nothing fails silently.
 */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<unknown>) {
  const [status, setStatus] = useState<ActionState>({ busy: false, error: null, done: null });
  const run = useCallback(
    async (...args: A) => {
      setStatus({ busy: true, error: null, done: null });
      try {
        const done = await action(...args);
        setStatus({ busy: false, error: null, done: typeof done === 'string' ? done : null });
        return true;
      } catch (error) {
        setStatus({ busy: false, error: problemOf(error), done: null });
        return false;
      }
    },
    [action],
  );
  return { ...status, run };
}

/** A button for one action, with its working state, its result and its error right beside it. */
export function ActionButton({
  label,
  busyLabel,
  action,
  kind = 'secondary',
  disabled = false,
}: {
  label: string;
  busyLabel?: string;
  action: () => Promise<unknown>;
  kind?: string;
  disabled?: boolean;
}) {
  const { busy, error, done, run } = useAction(action);
  return html`<span class="action">
    <button type="button" class=${`button ${kind}`} disabled=${busy || disabled} aria-busy=${busy}
      onClick=${() => run()}>${busy ? (busyLabel ?? `${label}…`) : label}</button>
    ${done && html`<span class="done" role="status">${done}</span>`}
    <${ErrorText} error=${error} />
  </span>`;
}

/** A status line announced politely (e.g. "New alert: …"). */
export function Announce({ message }: { message: string | null }) {
  return html`<p class="announce" role="status" aria-live="polite">${message ?? ''}</p>`;
}

/** A loading placeholder, or the error that stopped loading with a retry button. */
export function Loading({ error, retry }: { error?: Problem | null; retry?: () => void }) {
  if (error) {
    return html`<div class="panel"><${ErrorText} error=${error} />
      ${retry && html`<button type="button" class="button secondary" onClick=${retry}>${t('ui.try_again')}</button>`}</div>`;
  }
  return html`<p class="muted" role="status">${t('ui.loading')}</p>`;
}

export interface Loaded<T> {
  data: T | null;
  error: Problem | null;
  reload(): void;
}

/** Loads data for a page; `reload()` fetches again (used by live updates and after actions). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: Problem | null }>({ data: null, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data, error: null }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error: problemOf(error) })),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}

const relatives = new Map<string, Intl.RelativeTimeFormat>();

/** Relative times in the reader's locale (English when Intl refuses it). */
function relative(): Intl.RelativeTimeFormat {
  let made = relatives.get(reader.locale);
  if (!made) {
    try {
      made = new Intl.RelativeTimeFormat(reader.locale, { numeric: 'auto' });
    } catch {
      made = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
    }
    relatives.set(reader.locale, made);
  }
  return made;
}

/** "5 minutes ago", "in 2 hours" (in the reader's language). */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return t('time.never');
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 45) return t('time.just_now');
  if (abs < 3600) return relative().format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return relative().format(Math.round(seconds / 3600), 'hour');
  return relative().format(Math.round(seconds / 86400), 'day');
}

/** A time in the farm's time zone in the reader's locale, e.g. "Nov 22, 14:45", "22 nov, 14:45". */
export function farmTime(iso: string | null | undefined, timezone: string | null | undefined): string {
  return iso ? momentOf(iso, timezone) : '—';
}

// A number for people with its unit, in the reader's units and locale ("412 kg", "908 lb"; a dash when unknown).
export { qty as amount } from './i18n.ts';

/**
 * Once the page's records are shown, brings the one named by the URL's `#id` into view and focus (links
 * from the brief and from alerts point at a record this way).
 */
export function useScrollToHash(ready: boolean): void {
  useEffect(() => {
    if (!ready || !location.hash) return;
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (!target) return;
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  }, [ready, location.hash]);
}
