/**
 * What the paddocks page and the grazing plan both show of a paddock's grazing: whether anything is in it,
 * whether it has rested its target (the API's rest_days), who is in it, as links, and its grazing history
 * (the Map page's paddock panel shows the history too).
 */
import { formatArea, SQUARE_METRES_PER_ACRE } from '../../../domain/display-units.ts';
import { api, type Schema } from './api.ts';
import { type MessageKey, reader, t } from './i18n.ts';
import { html, useState } from './lib.ts';
import { EN } from './messages/en.ts';
import { farmTime, Loading, useLoad } from './ui.ts';

type Paddock = Schema<'Paddock'>;
/** What the history needs of a paddock (the paddocks page's record, the map's feature properties). */
type PaddockName = Pick<Paddock, 'id' | 'name'>;

/**
 * A paddock's area (stored in acres) in the reader's units: hectares, or acres in US units, as the map's
 * drawing sheet measures one (formatArea); '—' when unknown.
 */
export function areaText(acres: number | null | undefined): string {
  return acres === null || acres === undefined ? '—' : formatArea(acres * SQUARE_METRES_PER_ACRE, reader);
}

/** Whether anything (a group, an animal, a house) is in the paddock now. */
export function occupiedNow(paddock: Pick<Paddock, 'occupied_by'>): boolean {
  const o = paddock.occupied_by;
  return o.groups.length + o.animals.length + o.houses.length > 0;
}

/** Whether the paddock has rested at least its target (rest_days is null while it is grazed). */
export function pastTarget(paddock: Pick<Paddock, 'rest_days' | 'rest_days_target'>): boolean {
  return (
    paddock.rest_days !== null &&
    paddock.rest_days_target !== null &&
    paddock.rest_days >= paddock.rest_days_target
  );
}

/** Who is in the paddock now, as links to their pages; null when nobody is. */
export function Occupants({ paddock }: { paddock: Paddock }) {
  const o = paddock.occupied_by;
  const who = [
    ...o.groups.map((g) => html`<a href=${`/groups#${g.id}`}>${g.name}</a>`),
    ...o.animals.map((a) => html`<a href=${`/animals/${a.id}`}>${a.name ?? a.tag ?? a.id}</a>`),
    ...o.houses.map((h) => html`<a href=${`/houses#${h.id}`}>${h.name}</a>`),
  ];
  if (who.length === 0) return null;
  return html`<p class="small occupants">${t('grazing.in_it_now')} ${who.map((w, i) => html`${i > 0 ? ', ' : ''}${w}`)}</p>`;
}

/** What grazed (an animal, a group, a house) in the reader's words. */
function kindOf(kind: string): string {
  return `subject_kind.${kind}` in EN ? t(`subject_kind.${kind}` as MessageKey) : kind;
}

/** The paddock's grazing history, newest first, loaded when opened. */
function History({ paddock, timezone }: { paddock: PaddockName; timezone: string }) {
  const stays = useLoad(
    () => api('GET', '/v1/paddocks/{id}/grazing', { path: { id: paddock.id }, query: { limit: 20 } }),
    [paddock.id],
  );
  if (!stays.data) return html`<${Loading} error=${stays.error} retry=${stays.reload} />`;
  if (stays.data.data.length === 0) return html`<p class="small muted">${t('grazing.none')}</p>`;
  const day = (iso: string) => farmTime(iso, timezone);
  return html`<ol class="history small" aria-label=${t('grazing.history_of', { name: paddock.name })}>
    ${stays.data.data.map(
      (
        s,
      ) => html`<li key=${`${s.subject_id} ${s.from}`}><strong>${s.name}</strong> <span class="muted">(${kindOf(s.subject_type)})</span><br />
        ${s.until ? t('grazing.stay', { from: day(s.from), until: day(s.until) }) : t('grazing.stay_now', { from: day(s.from) })}</li>`,
    )}
  </ol>`;
}

/** "Grazing history", read from the API only once opened. */
export function HistoryToggle({ paddock, timezone }: { paddock: PaddockName; timezone: string }) {
  const [open, setOpen] = useState(false);
  return html`<details class="history-toggle" onToggle=${(e: Event) => setOpen((e.currentTarget as HTMLDetailsElement).open)}>
    <summary>${t('grazing.history')}</summary>
    ${open && html`<${History} paddock=${paddock} timezone=${timezone} />`}
  </details>`;
}

/**
 * The drawn outline's acres when the acres given differ from them by more than a tenth (a typed figure or
 * an old survey that the outline contradicts): shown beside the acres so a person can check; else null.
 */
export function drawnAcresApart(paddock: {
  acres: number | null;
  drawn_acres: number | null;
}): number | null {
  const { acres, drawn_acres: drawn } = paddock;
  if (acres === null || drawn === null || drawn <= 0) return null;
  return Math.abs(acres - drawn) / drawn > 0.1 ? drawn : null;
}
