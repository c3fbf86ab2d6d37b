/**
 * The field app in the shell, on every page: the offline banner with the time the phone's data is from
 * ("Offline · as of 06:42"), the "Waiting to sync (3)" link to the list, what needs attention, the sync
 * button, and the note that a new version is ready.
 */
import { html } from './lib.ts';
import { syncNow, useOffline } from './offline.ts';
import { currentFarm, useStore } from './store.ts';
import { farmTime } from './ui.ts';

/** "06:42" in the farm's time zone (as every time in the console), or "Nov 26, 06:42" when not today. */
export function asOfText(iso: string | null, timezone: string | undefined): string {
  if (!iso) return 'never refreshed on this phone';
  const zone = { timeZone: timezone || undefined };
  const day = (d: Date) => new Intl.DateTimeFormat('en-CA', zone).format(d);
  const time = new Intl.DateTimeFormat('en', {
    ...zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const at = new Date(iso);
  return day(at) === day(new Date()) ? time.format(at) : farmTime(iso, timezone);
}

export function OfflineBar() {
  const s = useOffline();
  useStore();
  const timezone = currentFarm()?.timezone;
  const queued = s.waiting > 0 || s.attention > 0;
  return html`
    ${
      !s.online &&
      html`<div class="offline-banner" role="status">
        <strong>Offline</strong> · as of ${asOfText(s.asOf, timezone)}<span class="long"> · what you record is kept on this phone and synced when the signal returns</span>
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
        ${s.waiting > 0 && html`<a class="sync-link" href="/sync">Waiting to sync (${s.waiting})</a>`}
        ${s.syncing && s.waiting === 0 && html`<span>Syncing…</span>`}
        ${s.attention > 0 && html`<a href="/sync" class="sync-link needs-attention">${s.attention} need${s.attention === 1 ? 's' : ''} attention</a>`}
        ${
          s.online &&
          s.waiting > 0 &&
          html`<button type="button" class="button secondary" disabled=${s.syncing} onClick=${() => syncNow()}>
            ${s.syncing ? 'Syncing…' : 'Sync now'}</button>`
        }
      </div>`
    }`;
}
