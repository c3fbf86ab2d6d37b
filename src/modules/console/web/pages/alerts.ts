/**
 * Alerts: open / acknowledged / resolved / all, most urgent first (the API's order); acknowledge and resolve
 * with the result shown beside the button; each alert's reason (the reading that raised it, with the rule's
 * line) and subject. New alerts appear as they happen, announced to screen readers.
 */
import { ruleTitle } from '../../../../domain/alert-terms.ts';
import { alertReason, alertTitle } from '../alert-text.ts';
import { api, type Schema } from '../api.ts';
import { reader, words } from '../i18n.ts';
import { html, type Markup, useState } from '../lib.ts';
import { subjectLink } from '../links.ts';
import { EN, ES } from '../messages/alerts.ts';
import { useReader } from '../reader-hook.ts';
import { navigate, useLocation } from '../router.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, Announce, ago, farmTime, Loading, useLoad, useScrollToHash } from '../ui.ts';
import type { PageProps } from './page.ts';

type Status = 'open' | 'acknowledged' | 'resolved' | 'all';
type Key = keyof typeof EN;
type Alert = Schema<'Alert'>;

const w = words(EN, ES);

/** Each tab's words: its name, the list's name, and what an empty list says. */
const TABS: { status: Status; label: Key; list: Key; none: Key }[] = [
  { status: 'open', label: 'tab_open', list: 'list_open', none: 'none_open' },
  { status: 'acknowledged', label: 'tab_acknowledged', list: 'list_acknowledged', none: 'none_acknowledged' },
  { status: 'resolved', label: 'tab_resolved', list: 'list_resolved', none: 'none_resolved' },
  { status: 'all', label: 'tab_all', list: 'list_all', none: 'none_all' },
];

const SEVERITIES: Record<Alert['severity'], { badge: Key; fresh: Key }> = {
  urgent: { badge: 'severity_urgent', fresh: 'new_urgent' },
  watch: { badge: 'severity_watch', fresh: 'new_watch' },
  info: { badge: 'severity_info', fresh: 'new_info' },
};

const STATUSES: Record<Alert['status'], Key> = {
  open: 'status_open',
  acknowledged: 'status_acknowledged',
  resolved: 'status_resolved',
};

/** What the link to an alert's subject says: the kind of thing it is (a water sensor is not a house). */
function subjectWords(alert: Alert, house: boolean): string {
  if (house) return w('open_house');
  switch (alert.subject_type) {
    case 'animal':
      return w('open_animal');
    case 'group':
      return w('open_group');
    case 'paddock':
      return w('open_paddock');
    default:
      return w('open_device');
  }
}

/** A built-in rule by its title in the reader's words ("Amoníaco alto"); a farm's own rule by its name. */
function ruleName(rule: string): Markup {
  return ruleTitle(reader.language, rule) ?? html`<code>${rule}</code>`;
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
      <span class=${`badge ${alert.severity}`}>${w(SEVERITIES[alert.severity].badge)}</span>
      <h2 class="card-title">${alertTitle(alert)}</h2>
      <span class=${`status ${alert.status}`}>${w(STATUSES[alert.status])}</span>
    </div>
    <p class="reason">${alertReason(alert, farm.timezone)}</p>
    <p class="muted small">
      ${w('raised', { when: farmTime(alert.created_at, farm.timezone), ago: ago(alert.created_at) })} · ${w('rule')} ${ruleName(alert.rule)}
      ${href && html` · <a href=${href}>${subjectWords(alert, house)}</a>`}
      ${alert.acknowledged_at && html` · ${w('acknowledged_ago', { ago: ago(alert.acknowledged_at) })}`}
      ${alert.resolved_at && html` · ${w('resolved_ago', { ago: ago(alert.resolved_at) })}`}
    </p>
    ${
      writable &&
      alert.status !== 'resolved' &&
      html`<div class="actions">
        ${alert.status === 'open' && html`<${ActionButton} label=${w('acknowledge')} busyLabel=${w('acknowledging')} action=${act('acknowledge', w('acknowledged'))} />`}
        <${ActionButton} label=${w('resolve')} busyLabel=${w('resolving')} action=${act('resolve', w('resolved'))} />
      </div>`
    }
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const loc = useLocation();
  const asked = new URLSearchParams(loc.search).get('status');
  const tab = TABS.find((t) => t.status === asked) ?? (TABS[0] as (typeof TABS)[number]);
  const status = tab.status;
  const list = useLoad(
    () => api('GET', '/v1/farms/{farm}/alerts', { path: { farm: farm.id }, query: { status, limit: 100 } }),
    [farm.id, status],
  );
  const [fresh, setFresh] = useState(new Set<string>());
  const [announcement, setAnnouncement] = useState('');
  useFarmStream(farm.id, ['alert.created', 'alert.resolved'], (event) => {
    if (event.type === 'alert.created') {
      const alert = event.data as Alert;
      setFresh((s) => new Set(s).add(alert.id));
      setAnnouncement(w(SEVERITIES[alert.severity].fresh, { title: alertTitle(alert) }));
    }
    list.reload();
  });

  useScrollToHash(list.data !== null);
  const alerts = list.data?.data ?? [];
  return html`<section>
    <h1>${w('title')}</h1>
    <div class="tabs" role="group" aria-label=${w('show')}>
      ${TABS.map(
        (t) => html`<button type="button" class="tab" aria-pressed=${t.status === status}
          onClick=${() => navigate(`/alerts?status=${t.status}`, { replace: true })}>${w(t.label)}</button>`,
      )}
    </div>
    <${Announce} message=${announcement} />
    ${
      !list.data
        ? html`<${Loading} error=${list.error} retry=${list.reload} />`
        : alerts.length === 0
          ? html`<p class="calm">${w(tab.none)}</p>`
          : html`<ul class="cards" aria-label=${w(tab.list)}>
            ${alerts.map((a) => html`<${AlertCard} key=${a.id} alert=${a} farm=${farm} fresh=${fresh.has(a.id)} onChanged=${list.reload} />`)}
          </ul>`
    }
    ${list.data?.has_more && html`<p class="muted">${w('more')}</p>`}
  </section>`;
}
