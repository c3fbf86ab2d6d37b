/**
 * An emailed acknowledge link (/ack/<token>): shows the alert and one button. Opening the page changes
 * nothing (mail scanners follow links); the button posts the single-use token.
 */
import { alertReason, alertTitle } from '../alert-text.ts';
import { ApiError, api } from '../api.ts';
import { words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/ack.ts';
import { useReader } from '../reader-hook.ts';
import { ActionButton, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const w = words(EN, ES);

export function Page({ params }: PageProps) {
  useReader();
  const token = params.token ?? '';
  const info = useLoad(
    () => api('GET', '/v1/notifications/acknowledge/{token}', { path: { token } }),
    [token],
  );
  if (info.error instanceof ApiError && info.error.status === 404) {
    return html`<div class="panel auth"><h1>${w('unknown')}</h1>
      <p>${w('instead')} <a href="/alerts">${w('alerts')}</a></p></div>`;
  }
  if (!info.data) return html`<${Loading} error=${info.error} retry=${info.reload} />`;
  const alert = info.data;
  const acknowledge = async () => {
    await api('POST', '/v1/notifications/acknowledge', { body: { token } });
    info.reload();
    return w('done');
  };
  return html`<div class="panel auth">
    <h1>${alertTitle(alert)}</h1>
    <p>${alertReason(alert)}</p>
    <p>${w('status')} <strong>${`status.${alert.status}` in EN ? w(`status.${alert.status}` as keyof typeof EN) : alert.status}</strong></p>
    ${
      alert.usable && alert.status === 'open'
        ? html`<${ActionButton} label=${w('acknowledge')} busyLabel=${w('acknowledging')} kind="primary" action=${acknowledge} />`
        : alert.status === 'acknowledged'
          ? html`<p role="status">${w('is_acknowledged')}</p>`
          : html`<p class="muted">${alert.status === 'open' ? w('used') : w('resolved')}</p>`
    }
    <p><a href=${`/alerts?alert=${encodeURIComponent(alert.alert_id)}`}>${w('open')}</a></p>
  </div>`;
}
