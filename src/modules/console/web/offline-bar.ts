/**
 * The field app in the shell, on every page: the offline banner with the time the phone's data is from
 * ("Offline · as of 06:42"), the "Waiting to sync (3)" link to the list, what needs attention, the sync
 * button, and the note that a new version is ready.
 */
import { html } from './lib.ts';
import { syncNow, useOffline } from './offline.ts';

/** "06:42", or "Nov 26, 06:42" when not today. */
export function asOfText(iso: string | null): string {
  if (!iso) return 'never refreshed on this phone';
  const at = new Date(iso);
  const today = at.toDateString() === new Date().toDateString();
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  return today ? time : `${at.toLocaleDateString([], { month: 'short', day: 'numeric' })}, ${time}`;
}

export function OfflineBar() {
  const s = useOffline();
  const queued = s.waiting > 0 || s.attention > 0;
  return html`
    ${
      !s.online &&
      html`<div class="offline-banner" role="status">
        <strong>Offline</strong> · as of ${asOfText(s.asOf)}<span class="long"> · what you record is kept on this phone and synced when the signal returns</span>
      </div>`
    }
    ${
      s.updated &&
      html`<div class="offline-banner update" role="status">Farmstead was updated.
        <button type="button" class="button link" onClick=${() => location.reload()}>Reload</button></div>`
    }
    ${
      (queued || s.syncing) &&
      html`<div class="sync-bar">
        <a class="sync-link" href="/sync">${s.waiting > 0 ? `Waiting to sync (${s.waiting})` : 'Sync'}</a>
        ${s.attention > 0 && html`<a href="/sync" class="sync-link attention">${s.attention} need${s.attention === 1 ? 's' : ''} attention</a>`}
        ${
          s.online &&
          s.waiting > 0 &&
          html`<button type="button" class="button secondary" disabled=${s.syncing} onClick=${() => syncNow()}>
            ${s.syncing ? 'Syncing…' : 'Sync now'}</button>`
        }
      </div>`
    }`;
}
