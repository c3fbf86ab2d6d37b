/**
 * Alerts: open / acknowledged / resolved / all, most urgent first (the API's order); acknowledge and resolve
 * with the result shown beside the button; each alert's reason (the reading that raised it, with the rule's
 * line) and subject. New alerts appear as they happen, announced to screen readers. A notice's link
 * (`/alerts?alert=<id>`) shows its alert first, whatever its status, on its farm.
 */
import { ruleTitle } from '../../../../domain/alert-terms.ts';
import { alertReason, alertTitle } from '../alert-text.ts';
import { ApiError, api, type Schema } from '../api.ts';
import { reader, words } from '../i18n.ts';
import { html, type Markup, useEffect, useState } from '../lib.ts';
import { subjectLink } from '../links.ts';
import { EN, ES } from '../messages/alerts.ts';
import { useReader } from '../reader-hook.ts';
import { navigate, useLocation } from '../router.ts';
import { can, chooseFarm, state, switchMode } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import {
  ActionButton,
  Announce,
  ago,
  ErrorText,
  farmTime,
  Loading,
  useLoad,
  useScrollToHash,
} from '../ui.ts';
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

/** A notice's alert, on its farm; notices are about live farms only, so test mode (a 404) switches to live. */
async function linkedAlert(id: string): Promise<Alert> {
  const read = () => api('GET', '/v1/alerts/{id}', { path: { id } });
  const alert = await read().catch(async (error: unknown) => {
    if (!(error instanceof ApiError && error.status === 404 && state.session?.mode === 'test')) throw error;
    await switchMode('live');
    return read();
  });
  if (state.farms.some((f) => f.id === alert.farm_id)) chooseFarm(alert.farm_id);
  return alert;
}

export function Page({ farm }: PageProps) {
  useReader();
  const loc = useLocation();
  const query = new URLSearchParams(loc.search);
  const asked = query.get('status');
  const wanted = query.get('alert');
  const tab = TABS.find((t) => t.status === asked) ?? (TABS[0] as (typeof TABS)[number]);
  const status = tab.status;
  const list = useLoad(
    () => api('GET', '/v1/farms/{farm}/alerts', { path: { farm: farm.id }, query: { status, limit: 100 } }),
    [farm.id, status],
  );
  const linked = useLoad(() => (wanted ? linkedAlert(wanted) : Promise.resolve(null)), [wanted]);
  const shown = linked.data?.farm_id === farm.id ? linked.data : null;
  const reload = () => {
    list.reload();
    linked.reload();
  };
  const [fresh, setFresh] = useState(new Set<string>());
  const [announcement, setAnnouncement] = useState('');
  useFarmStream(farm.id, ['alert.created', 'alert.resolved'], (event) => {
    if (event.type === 'alert.created') {
      const alert = event.data as Alert;
      setFresh((s) => new Set(s).add(alert.id));
      setAnnouncement(w(SEVERITIES[alert.severity].fresh, { title: alertTitle(alert) }));
    }
    reload();
  });

  useScrollToHash(list.data !== null);
  useEffect(() => {
    const card = shown && document.getElementById(shown.id);
    card?.scrollIntoView({ block: 'start' });
    card?.focus({ preventScroll: true });
  }, [shown?.id]);
  const alerts = (list.data?.data ?? []).filter((a) => a.id !== shown?.id);
  return html`<section>
    <h1>${w('title')}</h1>
    <${ErrorText} error=${linked.error} />
    ${
      shown &&
      html`<p class="muted" id="linked-alert">${w('linked')}</p>
      <ul class="cards" aria-labelledby="linked-alert">
        <${AlertCard} alert=${shown} farm=${farm} fresh=${true} onChanged=${reload} />
      </ul>`
    }
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
        : list.data.data.length === 0
          ? html`<p class="calm">${w(tab.none)}</p>`
          : alerts.length > 0 &&
            html`<ul class="cards" aria-label=${w(tab.list)}>
            ${alerts.map((a) => html`<${AlertCard} key=${a.id} alert=${a} farm=${farm} fresh=${fresh.has(a.id)} onChanged=${reload} />`)}
          </ul>`
    }
    ${list.data?.has_more && html`<p class="muted">${w('more')}</p>`}
  </section>`;
}
