/**
 * Waiting to sync: every change made on this phone that the server has not taken yet, and the latest it
 * took, each with its state — waiting, synced (with a note when someone had done it already), or needs
 * attention with the server's own words and the choice to fix it (the fields it sent, edited) or discard it.
 */
import { changeLabel } from '../change-label.ts';
import { Field } from '../form.ts';
import { apiErrorText, t, words } from '../i18n.ts';
import { html, useEffect, useRef, useState } from '../lib.ts';
import { EN, ES } from '../messages/sync.ts';
import { type Change, discard, listQueue, retry, syncNow, useOffline } from '../offline.ts';
import { useReader } from '../reader-hook.ts';
import { ActionButton, farmTime } from '../ui.ts';
import type { PageProps } from './page.ts';

const w = words(EN, ES);

/** The fields of a change a person can fix, as text (and `override_reason` when the refusal asks for it). */
function fixable(body: unknown, message: string | null = null): [string, string][] {
  const out: [string, string][] = [];
  const add = (prefix: string, record: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(record)) {
      if (typeof value === 'string' || typeof value === 'number')
        out.push([`${prefix}${name}`, String(value)]);
    }
  };
  const b = (body ?? {}) as Record<string, unknown>;
  add('', b);
  if (b.data && typeof b.data === 'object') add('data.', b.data as Record<string, unknown>);
  if (/override_reason/.test(message ?? '') && !('override_reason' in b)) out.push(['override_reason', '']);
  return out;
}

function fixed(body: unknown, form: FormData): unknown {
  const next = structuredClone((body ?? {}) as Record<string, unknown>);
  for (const [name, value] of form) {
    const [outer, inner] = name.startsWith('data.') ? ['data', name.slice(5)] : [null, name];
    const target = (outer ? next.data : next) as Record<string, unknown>;
    const was = target[inner];
    if (inner === 'override_reason' && !outer && String(value).trim() === '') {
      delete target[inner];
      continue;
    }
    target[inner] =
      typeof was === 'number' && value !== '' && Number.isFinite(Number(value))
        ? Number(value)
        : String(value);
  }
  return next;
}

/** A field of the Fix form in the reader's words ("Weight (kg)" for `data.kg`); one it does not know, by its name. */
function fieldLabel(name: string): string {
  const bare = name.replace('data.', '');
  const key = `field.${bare}`;
  return key in EN ? w(key as keyof typeof EN) : bare;
}

function Fix({ change, onClose }: { change: Change; onClose(): void }) {
  const fields = fixable(change.body, change.message);
  const [busy, setBusy] = useState(false);
  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    await retry(change, fixed(change.body, new FormData(event.currentTarget as HTMLFormElement)));
    setBusy(false);
    onClose();
  };
  return html`<form class="panel" onSubmit=${submit} aria-label=${w('fix_named', { change: changeLabel(change) })}>
    <div class="form-grid">
      ${fields.map(([name, value]) => html`<${Field} name=${name} label=${fieldLabel(name)} value=${value} idPrefix=${change.key} error=${null} />`)}
    </div>
    <div class="actions">
      <button type="submit" class="button primary" disabled=${busy}>${busy ? w('sending') : w('send_again')}</button>
      <button type="button" class="button link" onClick=${onClose}>${w('cancel')}</button>
    </div>
  </form>`;
}

function ChangeCard({
  change,
  timezone,
  onChanged,
}: {
  change: Change;
  timezone: string;
  onChanged(): void;
}) {
  const [fixing, setFixing] = useState(false);
  const kind = change.state === 'attention' ? 'needs-attention' : change.state;
  // A change whose record was deleted on Farmstead can only be discarded.
  const fields = change.gone ? [] : fixable(change.body, change.message);
  // What sending said of it itself (a code: it may have been the service worker), or the server's words.
  const note = change.note;
  const said = note
    ? note.code === 'done_by_other'
      ? w('note.done_by_other', { at: farmTime(note.params.at, timezone) })
      : w(`note.${note.code}`)
    : change.message;
  // A refusal in the reader's words by its code (English readers get the server's own sentence, as said),
  // the server's sentence kept as a technical detail. A change whose record is gone says that, in every
  // language: the server's "No task with id …" is a technical detail then too.
  const gone = change.state === 'attention' && change.gone;
  const own = gone ? w('gone') : !note && change.refusal ? apiErrorText(change.refusal.code) : null;
  return html`<li class=${`card change ${kind}`} id=${`change-${change.key}`}>
    <div class="card-head"><h2 class="card-title">${changeLabel(change)}</h2>
      <span class=${`status ${kind}`}>${w(`state.${change.state}`)}</span></div>
    <p class="small muted">${
      change.synced_at
        ? w('made_synced', {
            made: farmTime(change.made_at, timezone),
            synced: farmTime(change.synced_at, timezone),
          })
        : w('made', { made: farmTime(change.made_at, timezone) })
    }</p>
    ${said && html`<p class=${`change-message ${change.state === 'attention' ? 'error' : 'small'}`}>${own ?? said}</p>`}
    ${own && html`<details class="said"><summary>${t('api.details')}</summary>${said}</details>`}
    ${
      change.state === 'attention' &&
      html`<div class="actions">
        ${fields.length > 0 && html`<button type="button" class="button primary" onClick=${() => setFixing(true)}>${w('fix')}</button>`}
        ${
          !change.gone &&
          html`<${ActionButton} label=${w('send_again')} kind=${fields.length > 0 ? 'secondary' : 'primary'} action=${async () => {
            await retry(change);
            onChanged();
          }} />`
        }
        <${ActionButton} label=${w('discard')} kind=${change.gone ? 'primary' : 'secondary'} action=${async () => {
          if (!confirm(w('discard_confirm', { change: changeLabel(change) }))) return w('kept');
          await discard(change);
          onChanged();
          return w('discarded');
        }} />
      </div>`
    }
    ${
      fixing &&
      html`<${Fix} change=${change} onClose=${() => {
        setFixing(false);
        onChanged();
      }} />`
    }
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const s = useOffline();
  const [changes, setChanges] = useState<Change[] | null>(null);
  // Reads may finish out of order (a sync moves the queue on while one is running): the newest read wins.
  const reads = useRef(0);
  const load = () => {
    const n = ++reads.current;
    void listQueue().then((list) => {
      if (n === reads.current) setChanges(list);
    });
  };
  // The list follows the queue: each sync or new change is shown as it happens.
  useEffect(load, [s.waiting, s.attention, s.syncing]);
  if (!changes) return html`<p class="muted" role="status">${t('ui.loading')}</p>`;
  // In the order they go: oldest first (the queue's own order).
  return html`<section>
    <h1>${w('title')}</h1>
    <p class="muted">${w('intro')}</p>
    <div class="actions">
      <${ActionButton} label=${w('sync_now')} busyLabel=${w('syncing')} disabled=${!s.online} action=${async () => {
        await syncNow();
        load();
        return s.online ? w('synced_all') : w('still_offline');
      }} />
    </div>
    ${changes.length === 0 ? html`<p class="calm">${w('nothing')}</p>` : html`<ol class="cards">${changes.map((c) => html`<${ChangeCard} key=${c.key} change=${c} timezone=${farm.timezone} onChanged=${load} />`)}</ol>`}
  </section>`;
}
