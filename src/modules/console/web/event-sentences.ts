/**
 * The event log's sentences (issue 45): each known event type read as a whole sentence in the person's
 * language and units ("Weighed Bella (A12): 908 lb, by Crush scale"), subjects named by what people call
 * them (an animal by name and tag, a device, group or paddock by its name), a device's alarm by its alert's
 * title ("Trampilla atascada: House 2"), and a plain fallback for a custom type (its name as logged and its
 * subject). Never an id, never JSON: the raw data stays in the page's "technical details" disclosure.
 */
import { alertTerm } from '../../../domain/alert-terms.ts';
import { eventTypeName, isKnownEventType } from './event-types.ts';
import { qty, reader, t } from './i18n.ts';

/** Names of the farm's records, by id. */
export interface Names {
  animals: ReadonlyMap<string, { tag: string | null; name: string | null }>;
  devices: ReadonlyMap<string, string>;
  groups: ReadonlyMap<string, string>;
  paddocks: ReadonlyMap<string, string>;
}

export interface LoggedEvent {
  type: string;
  subject_type?: string | null;
  subject_id?: string | null;
  data: Record<string, unknown>;
}

/** An animal as people call it: "Bella (A12)", or its tag or name alone. */
export function animalName(animal: { tag: string | null; name: string | null }): string | null {
  if (animal.name && animal.tag) return t('sentence.animal_named', { name: animal.name, tag: animal.tag });
  return animal.name ?? animal.tag ?? null;
}

const KINDS = ['animal', 'group', 'paddock', 'device', 'task'] as const;

/** A record by its name; "a removed animal" when it is gone; "the farm" when the event has no subject. */
export function subjectName(
  type: string | null | undefined,
  id: string | null | undefined,
  names: Names,
): string {
  if (!type || !id) return t('sentence.farm');
  const found =
    type === 'animal'
      ? (() => {
          const a = names.animals.get(id);
          return a ? animalName(a) : null;
        })()
      : type === 'device'
        ? names.devices.get(id)
        : type === 'group'
          ? names.groups.get(id)
          : type === 'paddock'
            ? names.paddocks.get(id)
            : null;
  if (found) return found;
  const kind = (KINDS as readonly string[]).includes(type)
    ? t(`subject_kind.${type as (typeof KINDS)[number]}`)
    : type;
  return t('sentence.unknown', { kind });
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() ? value.trim() : null;
}

function number(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** A group and paddock pair (a move's from or to) by their names. */
function place(value: unknown, names: Names): string | null {
  if (!value || typeof value !== 'object') return null;
  const at = value as { group_id?: unknown; paddock_id?: unknown };
  const group = typeof at.group_id === 'string' ? (names.groups.get(at.group_id) ?? null) : null;
  const paddock = typeof at.paddock_id === 'string' ? (names.paddocks.get(at.paddock_id) ?? null) : null;
  if (group && paddock) return t('sentence.places', { group, paddock });
  return group ?? paddock;
}

/** The event as one sentence. */
export function eventSentence(event: LoggedEvent, names: Names): string {
  const d = event.data ?? {};
  const subject = subjectName(event.subject_type, event.subject_id, names);
  switch (event.type) {
    case 'weight': {
      const kg = number(d.kg);
      if (kg === null) break;
      const device = text(d.device_id) ? names.devices.get(String(d.device_id)) : undefined;
      const weight = qty(kg, 'kg');
      return device
        ? t('sentence.weight_by', { subject, weight, device })
        : t('sentence.weight', { subject, weight });
    }
    case 'move': {
      const from = place(d.from, names);
      const to = place(d.to, names);
      if (from && to) return t('sentence.move', { subject, from, to });
      if (to) return t('sentence.move_to', { subject, to });
      if (from) return t('sentence.move_out', { subject, from });
      return t('sentence.move_to', { subject, to: t('sentence.nowhere') });
    }
    case 'treatment': {
      const medicine = text(d.medicine) ?? text(d.product);
      if (!medicine) break;
      const amount = number(d.dose);
      const dose =
        amount !== null
          ? qty(amount, text(d.dose_unit))
          : (text(d.dose) ??
            (number(d.dose_ml_per_head) !== null ? qty(number(d.dose_ml_per_head), 'mL') : null));
      return dose
        ? t('sentence.treatment_dose', { subject, medicine, dose })
        : t('sentence.treatment', { subject, medicine });
    }
    case 'birth':
      return t('sentence.birth', { subject, count: number(d.count) ?? 1 });
    case 'sale': {
      const buyer = text(d.buyer);
      return buyer ? t('sentence.sale_to', { subject, buyer }) : t('sentence.sale', { subject });
    }
    case 'slaughter':
      return t('sentence.slaughter', { subject });
    case 'death': {
      const cause = text(d.cause) ?? text(d.reason);
      return cause ? t('sentence.death_cause', { subject, cause }) : t('sentence.death', { subject });
    }
    case 'note': {
      const note = text(d.text) ?? text(d.notes);
      if (!note) break;
      return t('sentence.note', { subject, text: note });
    }
    case 'feed.delivery': {
      const kg = number(d.kg);
      if (kg === null) break;
      const supplier = text(d.supplier);
      const weight = qty(kg, 'kg');
      return supplier
        ? t('sentence.feed_delivery_from', { subject, weight, supplier })
        : t('sentence.feed_delivery', { subject, weight });
    }
    case 'feed.refilled': {
      const pct = number(d.to_pct);
      if (pct === null) break;
      return t('sentence.feed_refilled', { subject, level: qty(pct, '%') });
    }
    case 'egg.collection': {
      const eggs = number(d.eggs);
      if (eggs === null) break;
      return t('sentence.egg_collection', { subject, count: eggs });
    }
    case 'movement': {
      const count = number(d.head_count);
      const holding = text(d.other_holding);
      if (count === null || !holding) break;
      return t(d.direction === 'on' ? 'sentence.movement_on' : 'sentence.movement_off', { count, holding });
    }
    case 'reading': {
      const value = number(d.value);
      if (value === null) break;
      return t('sentence.reading', { subject, value: qty(value, text(d.unit)) });
    }
    case 'alert.escalated':
      return t('sentence.alert_escalated', { subject });
  }
  // A device's alarm by its alert's title; a type without words as logged: made into words, it would pass
  // for a translation ("Door jammed").
  const type = isKnownEventType(event.type)
    ? eventTypeName(event.type)
    : (alertTerm(reader.language, `alarm.${event.type}.title`) ?? event.type);
  return t('sentence.custom', { type, subject });
}
