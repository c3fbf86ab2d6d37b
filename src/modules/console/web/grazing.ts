/**
 * What the paddocks page and the grazing plan both show of a paddock's grazing: whether anything is in it,
 * whether it has rested its target (the API's rest_days), and who is in it, as links.
 */
import type { Schema } from './api.ts';
import { html } from './lib.ts';

type Paddock = Schema<'Paddock'>;

/** Whether anything (a group, an animal, a house) is in the paddock now. */
export function occupiedNow(paddock: Paddock): boolean {
  const o = paddock.occupied_by;
  return o.groups.length + o.animals.length + o.houses.length > 0;
}

/** Whether the paddock has rested at least its target (rest_days is null while it is grazed). */
export function pastTarget(paddock: Paddock): boolean {
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
  return html`<p class="small occupants">In it now: ${who.map((w, i) => html`${i > 0 ? ', ' : ''}${w}`)}</p>`;
}
