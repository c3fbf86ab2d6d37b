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

/** The farm event types the holding register lists beside the movements (births and deaths). */
export const REGISTER_EVENT_TYPES = ['birth', 'death'] as const;
