/**
 * The brief (home): the farm's morning brief as a person reads it — the headline, then the ranked items,
 * each with what to do and a link to its alert, task, house or device. Refreshed live as events arrive.
 */

import { WEBHOOK_EVENTS } from '../../../../domain/webhook-events.ts';
import { api, type Schema } from '../api.ts';
import { dateOf, inReaderUnits, words } from '../i18n.ts';
import { html, useMemo } from '../lib.ts';
import { briefItemLink } from '../links.ts';
import { EN, ES } from '../messages/brief.ts';
import { useReader } from '../reader-hook.ts';
import { withReaderDates } from '../sentence-dates.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, ago, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Item = Schema<'Brief'>['items'][number];
type Key = keyof typeof EN;

const w = words(EN, ES);

/**
 * What a person does about each kind of item (the brief says what and why; this is the next step). An
 * alert's step is said by its subject (below): the same sentence under every alert said nothing.
 */
const NEXT_STEP: Partial<Record<Item['kind'], Key>> = {
  task_overdue: 'task_overdue',
  task_due_today: 'task_due_today',
  house: 'house',
  doors_open: 'doors_open',
  device_quiet: 'device_quiet',
  device_battery: 'device_battery',
  paddock_rest: 'paddock_rest',
};

const SEVERITIES: Record<Item['severity'], Key> = { urgent: 'urgent', watch: 'watch', info: 'info' };

/** An alert's next step, by what it is about; the alert's own page acknowledges and resolves it. */
function alertStep(item: Item, houseIds: Set<string>): Key {
  const urgent = item.severity === 'urgent';
  if (item.subject_id !== null && houseIds.has(item.subject_id)) {
    return urgent ? 'house_urgent' : 'house_watch';
  }
  switch (item.subject_type) {
    case 'animal':
      return urgent ? 'animal_urgent' : 'animal_watch';
    case 'group':
      return 'group';
    case 'paddock':
      return 'paddock';
    default:
      return urgent ? 'device_urgent' : 'device_watch';
  }
}

/** When an item began ("since 1 Dec, 06:00"), or for one still ahead (a due date, a withdrawal's end) the time alone. */
function itemTime(at: string, timezone: string): string {
  const when = farmTime(at, timezone);
  return Date.parse(at) > Date.now() ? when : w('since', { when });
}

function Item({ item, houseIds, timezone }: { item: Item; houseIds: Set<string>; timezone: string }) {
  const href = briefItemLink(item, houseIds);
  const key = item.kind === 'alert' ? alertStep(item, houseIds) : NEXT_STEP[item.kind];
  const step = key ? w(key) : '';
  // The server writes the brief in the catalog's units: each quantity in the reader's (web/i18n.ts).
  const said = withReaderDates(inReaderUnits(item.title), timezone);
  const title = href ? html`<a href=${href}>${said}</a>` : said;
  return html`<li class=${`item ${item.severity}`}>
    <span class=${`badge ${item.severity}`}>${w(SEVERITIES[item.severity])}</span>
    <div class="item-body">
      <p class="item-title">${title}</p>
      <p class="item-detail">${withReaderDates(inReaderUnits(item.detail), timezone)}</p>
      <p class="item-next">${step}
        ${item.at && html`<span class="muted">${step ? ' · ' : ''}${itemTime(item.at, timezone)}</span>`}</p>
    </div>
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const brief = useLoad(() => api('GET', '/v1/farms/{farm}/brief', { path: { farm: farm.id } }), [farm.id]);
  useFarmStream(farm.id, WEBHOOK_EVENTS, () => brief.reload());
  const houseIds = useMemo(() => new Set((brief.data?.houses ?? []).map((h) => h.id)), [brief.data]);
  if (!brief.data) return html`<${Loading} error=${brief.error} retry=${brief.reload} />`;
  const b = brief.data;
  return html`<section class="brief">
    <h1 class="headline">${inReaderUnits(b.headline)}</h1>
    <p class="muted small">${w('updated', { farm: b.farm_name, day: dateOf(b.local_date), ago: ago(b.generated_at) })}</p>
    ${
      b.items.length === 0
        ? html`<p class="calm">${w('calm')}</p>`
        : html`<ol class="items" aria-label=${w('items')}>
          ${b.items.map((item) => html`<${Item} key=${`${item.kind}-${item.ref_id ?? item.subject_id}-${item.rank}`} item=${item} houseIds=${houseIds} timezone=${b.timezone} />`)}
        </ol>`
    }
    <details class="brief-text"><summary>${w('as_text')}</summary><p>${inReaderUnits(b.text)}</p></details>
    ${
      farm.sample &&
      can('farms', 'write') &&
      html`<div class="actions owner-only">
        <${ActionButton} label=${w('reset')} busyLabel=${w('resetting')} action=${async () => {
          if (!confirm(w('reset_confirm'))) return w('kept');
          await api('POST', '/v1/farms/{farm}/reset', { path: { farm: farm.id } });
          brief.reload();
          return w('reset_done');
        }} />
      </div>`
    }
  </section>`;
}
