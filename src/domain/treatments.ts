/**
 * The herd book's fixed lists (issue 46): how a medicine is given, and what counts as an animal leaving the
 * holding, which the withdrawal check guards (docs/records.md).
 */

/** Routes of administration, as a medicine record names them. */
export const TREATMENT_ROUTES = [
  'oral',
  'injection_im',
  'injection_sc',
  'injection_iv',
  'pour_on',
  'intramammary',
  'intrauterine',
  'topical',
  'intranasal',
  'in_feed',
  'in_water',
  'other',
] as const;
export type TreatmentRoute = (typeof TREATMENT_ROUTES)[number];

/** Farm event types that take an animal (or each animal of a group) off the holding into the food chain. */
export const LEAVING_EVENT_TYPES = ['sale', 'slaughter'] as const;

/** The farm event that keeps an override of the withdrawal check on a status change (the animal's history). */
export const WITHDRAWAL_OVERRIDE_EVENT = 'withdrawal_override';

/** Animal statuses that mean it has left: a change to one of them is checked like a sale. */
export const LEAVING_STATUSES = ['sold', 'slaughtered'] as const;

/** Types and statuses are free text: "Sale", "SOLD" and "sold " record the same leaving as "sale" and "sold". */
function said(word: string): string {
  return word.trim().toLowerCase();
}

export function isLeavingEventType(type: string): boolean {
  return (LEAVING_EVENT_TYPES as readonly string[]).includes(said(type));
}

export function isLeavingStatus(status: string): boolean {
  return (LEAVING_STATUSES as readonly string[]).includes(said(status));
}

/** The farm event a treatment appears as in the log (the spec's free-form `treatment` event, still accepted). */
export const TREATMENT_EVENT = 'treatment';
