/**
 * The holding register's fixed lists (issue 46, docs/records.md): the kinds of holding number a farm has, and
 * a movement's direction and reason, with the status a move off leaves each animal in.
 */

/** A holding number's kind: CPH (UK), PIC (Australia), herd number (Ireland), premises ID (US), or other. */
export const HOLDING_TYPES = ['cph', 'pic', 'herd_number', 'premises_id', 'other'] as const;
export type HoldingType = (typeof HOLDING_TYPES)[number];

export const MOVEMENT_DIRECTIONS = ['on', 'off'] as const;
export type MovementDirection = (typeof MOVEMENT_DIRECTIONS)[number];

export const MOVEMENT_REASONS = [
  'sale',
  'purchase',
  'slaughter',
  'show',
  'agistment',
  'death',
  'other',
] as const;
export type MovementReason = (typeof MOVEMENT_REASONS)[number];

/** The farm event each movement appears as in the log. */
export const MOVEMENT_EVENT = 'movement';

/**
 * The status a move off leaves an animal in: sold, slaughtered or dead where the reason says so; any other
 * reason (a show, agistment, other) is `moved_off`: off this holding, expected back or not, but not sold.
 */
export function statusAfterMoveOff(reason: MovementReason): string {
  if (reason === 'sale') return 'sold';
  if (reason === 'slaughter') return 'slaughtered';
  if (reason === 'death') return 'dead';
  return 'moved_off';
}

/** The status a move on leaves an animal in. */
export const STATUS_AFTER_MOVE_ON = 'active';

/** Statuses of an animal no longer on the holding: it cannot be moved off again. */
const OFF_HOLDING = new Set(['sold', 'slaughtered', 'dead', 'culled', 'moved_off']);
/** Statuses no animal comes back from: it cannot be moved on. */
const GONE_FOR_GOOD = new Set(['slaughtered', 'dead']);

/**
 * Why this animal (its status now) cannot make this move, or null: a move off of one already off the
 * holding (sold twice), a move on of one dead or slaughtered. Only asked of a move that is the animal's
 * latest: an older one entered late goes in the register and leaves the status alone.
 */
export function refusedMove(direction: MovementDirection, status: string): string | null {
  const said = status.trim().toLowerCase();
  if (direction === 'off' && OFF_HOLDING.has(said)) return `it is not on the holding (status ${status})`;
  if (direction === 'on' && GONE_FOR_GOOD.has(said)) return `it is ${said}`;
  return null;
}

/** The farm event types the holding register lists beside the movements (births and deaths). */
export const REGISTER_EVENT_TYPES = ['birth', 'death'] as const;
