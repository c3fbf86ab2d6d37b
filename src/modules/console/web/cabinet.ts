/**
 * The medicine cabinet's facts the herd book pages share (the cabinet, giving a treatment): the farm's
 * medicines, and which batches are expired, expiring soon or low, in the order they should be used.
 */
import { api, type Schema } from './api.ts';
import { loadAll } from './records.ts';

type Batch = Schema<'MedicineBatch'>;

/** A batch expiring within this many days is marked (the brief's own window, issue 46). */
export const EXPIRING_DAYS = 30;
/** A batch with this share of what was bought or less left is low (docs/console.md). */
export const LOW_STOCK_SHARE = 0.2;

export const DAY_MS = 86_400_000;

/** The farm's medicines, every page. */
export function loadMedicines(farm: string) {
  return loadAll((before) =>
    api('GET', '/v1/farms/{farm}/medicines', { path: { farm }, query: { limit: 100, before } }),
  );
}

/** A batch's state for people: expired, expiring soon, low, or fine (in that order of urgency). */
export function batchState(
  batch: Batch,
  now = Date.now(),
): { expired: boolean; soon: boolean; low: boolean } {
  const expires = Date.parse(batch.expiry);
  return {
    expired: batch.expired || expires <= now,
    soon: expires > now && expires - now <= EXPIRING_DAYS * DAY_MS,
    low: batch.remaining <= batch.quantity * LOW_STOCK_SHARE,
  };
}

/** Batches in the order they should be used: unexpired first, the soonest to expire first. */
export function batchesInOrder(batches: readonly Batch[], now = Date.now()): Batch[] {
  return [...batches].sort((a, b) => {
    const ax = batchState(a, now).expired ? 1 : 0;
    const bx = batchState(b, now).expired ? 1 : 0;
    return ax - bx || Date.parse(a.expiry) - Date.parse(b.expiry);
  });
}
