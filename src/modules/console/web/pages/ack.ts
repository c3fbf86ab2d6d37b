/**
 * An emailed acknowledge link (/ack/<token>): shows the alert and one button. Opening the page changes
 * nothing (mail scanners follow links); the button posts the single-use token.
 */
import { alertReason, alertTitle } from '../alert-text.ts';
import { ApiError, api } from '../api.ts';
import { html } from '../lib.ts';
import { ActionButton, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

export function Page({ params }: PageProps) {
  const token = params.token ?? '';
  const info = useLoad(
    () => api('GET', '/v1/notifications/acknowledge/{token}', { path: { token } }),
    [token],
  );
  if (info.error instanceof ApiError && info.error.status === 404) {
    return html`<div class="panel auth"><h1>This link is not known</h1>
      <p>Open the alert in the console instead: <a href="/alerts">Alerts</a>.</p></div>`;
  }
  if (!info.data) return html`<${Loading} error=${info.error} retry=${info.reload} />`;
  const alert = info.data;
  const acknowledge = async () => {
    await api('POST', '/v1/notifications/acknowledge', { body: { token } });
    info.reload();
    return 'Acknowledged. Whoever was being woken for it will not be.';
  };
  return html`<div class="panel auth">
    <h1>${alertTitle(alert)}</h1>
    <p>${alertReason(alert)}</p>
    <p>Status: <strong>${alert.status}</strong></p>
    ${
      alert.usable && alert.status === 'open'
        ? html`<${ActionButton} label="Acknowledge this alert" busyLabel="Acknowledging…" kind="primary" action=${acknowledge} />`
        : alert.status === 'acknowledged'
          ? html`<p role="status">This alert is acknowledged.</p>`
          : html`<p class="muted">${alert.status === 'open' ? 'This link was used or has expired.' : 'This alert is resolved: nothing to do.'}</p>`
    }
    <p><a href=${`/alerts?alert=${encodeURIComponent(alert.alert_id)}`}>Open the alert in the console</a></p>
  </div>`;
}
