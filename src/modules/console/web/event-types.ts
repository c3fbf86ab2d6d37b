/**
 * The event types the console knows and their names in the reader's language: the event log's picker, an
 * animal's history and a queued change name a type with these. Apart from the event log's sentences
 * (web/event-sentences.ts), which a page that only names a type does not load.
 */
import { words } from './i18n.ts';
import { EN, ES } from './messages/event-types.ts';

const w = words(EN, ES);

/** The event types the product knows, in the order a picker lists them. */
export const KNOWN_EVENT_TYPES = [
  'weight',
  'treatment',
  'move',
  'birth',
  // The breeding records (src/domain/breeding.ts), logged from the animal page and the chute.
  'heat',
  'service',
  'pregnancy_check',
  'abortion',
  'weaning',
  'sale',
  'slaughter',
  'death',
  'note',
  'feed.delivery',
  'feed.refilled',
  'egg.collection',
  'movement',
  'reading',
  'alert.escalated',
] as const;
export type KnownEventType = (typeof KNOWN_EVENT_TYPES)[number];

export function isKnownEventType(type: string): type is KnownEventType {
  return (KNOWN_EVENT_TYPES as readonly string[]).includes(type);
}

/** A type as a picker names it: the known ones translated, a custom one quoted. */
export function eventTypeName(type: string): string {
  return isKnownEventType(type) ? w(type) : w('custom', { type });
}
