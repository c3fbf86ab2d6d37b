/**
 * The brief (home): the farm's morning brief as a person reads it — the headline, then the ranked items,
 * each with what to do and a link to its alert, task, house or device. Refreshed live as events arrive.
 */

import { WEBHOOK_EVENTS } from '../../../../domain/webhook-events.ts';
import { api, type Schema } from '../api.ts';
import { inReaderUnits } from '../i18n.ts';
import { html, useMemo } from '../lib.ts';
import { briefItemLink } from '../links.ts';
import { can } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ActionButton, ago, farmTime, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type Item = Schema<'Brief'>['items'][number];

/**
 * What a person does about each kind of item (the brief says what and why; this is the next step). An
 * alert's step is said by its subject (below): the same sentence under every alert said nothing.
 */
const NEXT_STEP: Partial<Record<Item['kind'], string>> = {
  task_overdue: 'Do it now, or move its due date.',
  task_due_today: 'Due today.',
  house: 'Check the house.',
  doors_open: 'Close the pop doors for the night.',
  device_quiet: 'Check its power and signal.',
  device_battery: 'Charge or change the battery.',
  paddock_rest: 'Rested: ready to graze.',
};

/** An alert's next step, by what it is about; the alert's own page acknowledges and resolves it. */
function alertStep(item: Item, houseIds: Set<string>): string {
  const urgent = item.severity === 'urgent';
  if (item.subject_id !== null && houseIds.has(item.subject_id)) {
    return urgent ? 'Go to the house now.' : 'Look at the house on your next round.';
  }
  switch (item.subject_type) {
    case 'animal':
      return urgent ? 'See to the animal now.' : 'Look at the animal today.';
    case 'group':
      return 'Check the group and its water and feed.';
    case 'paddock':
      return 'Check the paddock.';
    default:
      return urgent ? 'Check the device now.' : 'Check the device where it is.';
  }
}

function Item({ item, houseIds, timezone }: { item: Item; houseIds: Set<string>; timezone: string }) {
  const href = briefItemLink(item, houseIds);
  const step = item.kind === 'alert' ? alertStep(item, houseIds) : (NEXT_STEP[item.kind] ?? '');
  // The server writes the brief in the catalog's units: each quantity in the reader's (web/i18n.ts).
  const words = inReaderUnits(item.title);
  const title = href ? html`<a href=${href}>${words}</a>` : words;
  return html`<li class=${`item ${item.severity}`}>
    <span class=${`badge ${item.severity}`}>${item.severity}</span>
    <div class="item-body">
      <p class="item-title">${title}</p>
      <p class="item-detail">${inReaderUnits(item.detail)}</p>
      <p class="item-next">${step}
        ${item.at && html`<span class="muted"> · since ${farmTime(item.at, timezone)}</span>`}</p>
    </div>
  </li>`;
}

export function Page({ farm }: PageProps) {
  const brief = useLoad(() => api('GET', '/v1/farms/{farm}/brief', { path: { farm: farm.id } }), [farm.id]);
  useFarmStream(farm.id, WEBHOOK_EVENTS, () => brief.reload());
  const houseIds = useMemo(() => new Set((brief.data?.houses ?? []).map((h) => h.id)), [brief.data]);
  if (!brief.data) return html`<${Loading} error=${brief.error} retry=${brief.reload} />`;
  const b = brief.data;
  return html`<section class="brief">
    <h1 class="headline">${inReaderUnits(b.headline)}</h1>
    <p class="muted small">${b.farm_name} · ${b.local_date} · updated ${ago(b.generated_at)}</p>
    ${
      b.items.length === 0
        ? html`<p class="calm">Nothing needs you right now.</p>`
        : html`<ol class="items" aria-label="What needs attention, most important first">
          ${b.items.map((item) => html`<${Item} key=${`${item.kind}-${item.ref_id ?? item.subject_id}-${item.rank}`} item=${item} houseIds=${houseIds} timezone=${b.timezone} />`)}
        </ol>`
    }
    <details class="brief-text"><summary>The brief as text</summary><p>${inReaderUnits(b.text)}</p></details>
    ${
      farm.sample &&
      can('farms', 'write') &&
      html`<div class="actions owner-only">
        <${ActionButton} label="Reset the sample farm" busyLabel="Resetting…" action=${async () => {
          if (!confirm('Put the sample farm back as it was? Changes made to it are lost.'))
            return 'Kept as it is.';
          await api('POST', '/v1/farms/{farm}/reset', { path: { farm: farm.id } });
          brief.reload();
          return 'The sample farm is as new.';
        }} />
      </div>`
    }
  </section>`;
}
