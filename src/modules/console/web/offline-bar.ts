/**
 * The field app in the shell, on every page: the offline banner with the time the phone's data is from
 * ("Offline · as of 06:42"), the "Waiting to sync (3)" link to the list, what needs attention, the sync
 * button, and the note that a new version is ready.
 */
import { CLOCK, reader, t } from './i18n.ts';
import { html } from './lib.ts';
import { syncNow, useOffline } from './offline.ts';
import { currentFarm, useStore } from './store.ts';
import { farmTime } from './ui.ts';

/** "06:42" in the farm's time zone (as every time in the console), or "Nov 26, 06:42" when not today. */
export function asOfText(iso: string | null, timezone: string | undefined): string {
  if (!iso) return t('offline.never_refreshed');
  const zone = { timeZone: timezone || undefined };
  const day = (d: Date) => new Intl.DateTimeFormat('en-CA', zone).format(d);
  const time = new Intl.DateTimeFormat(reader.locale, { ...zone, ...CLOCK });
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
        <strong>${t('offline.offline')}</strong> · ${t('offline.as_of', { time: asOfText(s.asOf, timezone) })}<span class="long"> · ${t('offline.kept')}</span>
      </div>`
    }
    ${
      s.updated &&
      html`<div class="offline-banner update" role="status">${t('offline.updated')}
        <button type="button" class="button link" onClick=${() => location.reload()}>${t('offline.reload')}</button></div>`
    }
    ${
      (queued || s.syncing) &&
      html`<div class="sync-bar">
        ${s.waiting > 0 && html`<a class="sync-link" href="/sync">${t('offline.waiting', { count: s.waiting })}</a>`}
        ${s.syncing && s.waiting === 0 && html`<span>${t('offline.syncing')}</span>`}
        ${s.attention > 0 && html`<a href="/sync" class="sync-link needs-attention">${t('offline.attention', { count: s.attention })}</a>`}
        ${
          s.online &&
          s.waiting > 0 &&
          html`<button type="button" class="button secondary" disabled=${s.syncing} onClick=${() => syncNow()}>
            ${s.syncing ? t('offline.syncing') : t('offline.sync_now')}</button>`
        }
      </div>`
    }`;
}
