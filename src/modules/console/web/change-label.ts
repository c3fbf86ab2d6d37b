/**
 * A queued change in the reader's words (the list on /sync): offline-changes.ts keeps what a change is as a
 * catalog key and its values (`Change.said`), so the list says it in the language of today, not of the day
 * it was made. A weight is kept in kg and an event's type as its code, both said in the reader's way here.
 */
import { eventTypeName } from './event-types.ts';
import { type MessageKey, qty, t } from './i18n.ts';
import { EN } from './messages/en.ts';
import type { Change } from './queue-send.ts';

/** A change's words: its key in the reader's language, the kg and event type in the reader's way. */
export function sayChange(said: NonNullable<Change['said']>): string {
  const params = { ...said.params };
  if (typeof params.weight === 'number') params.weight = qty(params.weight, 'kg');
  if (typeof params.event === 'string') params.event = eventTypeName(params.event);
  return t(said.key as MessageKey, params);
}

/** What a change is, for people; the label it was kept with when it has no key (kept before keys were). */
export function changeLabel(change: Change): string {
  return change.said && change.said.key in EN ? sayChange(change.said) : change.label;
}
