/**
 * Farm event types only the server writes, each with what writes it (docs/records.md, "Events only the server
 * writes").
 * A client can neither log one nor rename an event into one (400 naming `type`): it would pass for the server's.
 * Nor can it edit or delete one, or rename it to something else (409 `conflict`): the log keeps them as written.
 * The other events the server logs (moves, weights, treatments, movements, births' offspring weights, a
 * device's own events) are of types clients log too, and stay the herd book's to correct (docs/records.md).
 */
import { WITHDRAWAL_OVERRIDE_EVENT } from './treatments.ts';
import { ALERT_FARM_EVENT_TYPES } from './webhook-events.ts';

export const SERVER_FARM_EVENT_WRITERS: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(ALERT_FARM_EVENT_TYPES.map((type) => [type, 'the alert engine'])),
  // The record that a person sold or slaughtered an animal inside its meat withdrawal, and why.
  [WITHDRAWAL_OVERRIDE_EVENT]: 'a status change that overrode a meat withdrawal',
});

/**
 * What writes farm events of this type, if only the server does; else null. Types are free text, matched as
 * the herd book matches them ("Alert.Escalated " is the alert engine's type too, so it cannot be logged).
 */
export function serverFarmEventWriter(type: string): string | null {
  const said = type.trim().toLowerCase();
  return Object.hasOwn(SERVER_FARM_EVENT_WRITERS, said) ? (SERVER_FARM_EVENT_WRITERS[said] ?? null) : null;
}
