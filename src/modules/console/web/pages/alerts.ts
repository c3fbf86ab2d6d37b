/**
 * Alerts: open / acknowledged / resolved / all, most urgent first (the API's order); acknowledge and resolve
 * with the result shown beside the button; each alert's reason (the reading that raised it, with the rule's
 * line) and subject. New alerts appear as they happen, announced to screen readers.
 */
import { alertReason, alertTitle } from '../alert-text.ts';
import { api, type Schema } from '../api.ts';
import { html, useState } from '../lib.ts';
import { subjectLink } from '../links.ts';
import { navigate, useLocation } from '../router.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, Announce, ago, farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Status = 'open' | 'acknowledged' | 'resolved' | 'all';

const TABS: { status: Status; label: string }[] = [
  { status: 'open', label: 'Open' },
  { status: 'acknowledged', label: 'Acknowledged' },
  { status: 'resolved', label: 'Resolved' },
  { status: 'all', label: 'All' },
];

/** What the link to an alert's subject says: the kind of thing it is (a water sensor is not a house). */
function subjectWords(alert: Schema<'Alert'>, house: boolean): string {
  if (house) return 'Open the house';
  switch (alert.subject_type) {
    case 'animal':
      return 'Open the animal';
    case 'group':
      return 'Open the group';
    case 'paddock':
      return 'Open the paddock';
    default:
      return 'Open the device';
  }
}

function AlertCard({
  alert,
  farm,
  fresh,
  onChanged,
}: {
  alert: Schema<'Alert'>;
  farm: Schema<'Farm'>;
  fresh: boolean;
  onChanged(): void;
}) {
  const house = alert.rule.startsWith('house.');
  const href = subjectLink(alert.subject_type, alert.subject_id, { house });
  const writable = can('alerts', 'write');
  const act = (verb: 'acknowledge' | 'resolve', done: string) => async () => {
    await api('POST', `/v1/alerts/{id}/${verb}`, { path: { id: alert.id } });
    onChanged();
    return done;
  };
  return html`<li id=${alert.id} class=${`card alert ${alert.severity}${fresh ? ' fresh' : ''}`} tabindex="-1">
    <div class="card-head">
      <span class=${`badge ${alert.severity}`}>${alert.severity}</span>
      <h2 class="card-title">${alertTitle(alert)}</h2>
      <span class=${`status ${alert.status}`}>${alert.status}</span>
    </div>
    <p class="reason">${alertReason(alert)}</p>
    <p class="muted small">
      Raised ${farmTime(alert.created_at, farm.timezone)} (${ago(alert.created_at)}) · rule <code>${alert.rule}</code>
      ${href && html` · <a href=${href}>${subjectWords(alert, house)}</a>`}
      ${alert.acknowledged_at && html` · acknowledged ${ago(alert.acknowledged_at)}`}
      ${alert.resolved_at && html` · resolved ${ago(alert.resolved_at)}`}
    </p>
    ${
      writable &&
      alert.status !== 'resolved' &&
      html`<div class="actions">
        ${alert.status === 'open' && html`<${ActionButton} label="Acknowledge" busyLabel="Acknowledging…" action=${act('acknowledge', 'Acknowledged')} />`}
        <${ActionButton} label="Resolve" busyLabel="Resolving…" action=${act('resolve', 'Resolved')} />
      </div>`
    }
  </li>`;
}

export function Page({ farm }: PageProps) {
  const loc = useLocation();
  const asked = new URLSearchParams(loc.search).get('status');
  const status = TABS.find((tab) => tab.status === asked)?.status ?? 'open';
  const list = useLoad(
    () => api('GET', '/v1/farms/{farm}/alerts', { path: { farm: farm.id }, query: { status, limit: 100 } }),
    [farm.id, status],
  );
  const [fresh, setFresh] = useState(new Set<string>());
  const [announcement, setAnnouncement] = useState('');
  useFarmStream(farm.id, ['alert.created', 'alert.resolved'], (event) => {
    if (event.type === 'alert.created') {
      const alert = event.data as Schema<'Alert'>;
      setFresh((s) => new Set(s).add(alert.id));
      setAnnouncement(`New ${alert.severity} alert: ${alertTitle(alert)}`);
    }
    list.reload();
  });

  useScrollToHash(list.data !== null);
  const alerts = list.data?.data ?? [];
  return html`<section>
    <h1>Alerts</h1>
    <div class="tabs" role="group" aria-label="Show alerts">
      ${TABS.map(
        (tab) => html`<button type="button" class="tab" aria-pressed=${tab.status === status}
          onClick=${() => navigate(`/alerts?status=${tab.status}`, { replace: true })}>${tab.label}</button>`,
      )}
    </div>
    <${Announce} message=${announcement} />
    ${
      !list.data
        ? html`<${Loading} error=${list.error} retry=${list.reload} />`
        : alerts.length === 0
          ? html`<p class="calm">No ${status === 'all' ? '' : `${status} `}alerts.</p>`
          : html`<ul class="cards" aria-label=${`${status} alerts`}>
            ${alerts.map((a) => html`<${AlertCard} key=${a.id} alert=${a} farm=${farm} fresh=${fresh.has(a.id)} onChanged=${list.reload} />`)}
          </ul>`
    }
    ${list.data?.has_more && html`<p class="muted">Showing the 100 most urgent.</p>`}
  </section>`;
}
