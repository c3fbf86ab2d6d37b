/**
 * Which commands need a person's confirmation before they are sent, derived from the `confirm` mark
 * of each command in the registry. The spec asks clients to confirm before moving a house or opening
 * doors after dark; MCP enforces it for agents and the console asks the same question.
 *
 * "After dark" is the sun below the horizon at the farm's coordinates (sunset to sunrise), the
 * cautious reading of "between dusk and dawn". A farm without coordinates cannot tell, so an
 * after-dark command there always needs the confirmation.
 */
import { darknessAt } from '../lib/solar.ts';
import type { CommandSpec } from './command-params.ts';
import { DEVICE_COMMANDS } from './devices.ts';
import { HOUSE_COMMANDS } from './house-commands.ts';

export interface ConfirmPlace {
  timezone: string;
  lat: number | null;
  lon: number | null;
}

/** Why a command needs a person's confirmation now. */
export type ConfirmationNeed =
  /** The command always needs it (moving a house). */
  | { reason: 'always' }
  /** It is dark at the farm; the times are null when the sun does not rise or set that day. */
  | { reason: 'after_dark'; lastSunset: number | null; nextSunrise: number | null }
  /** An after-dark command on a farm without coordinates, where darkness cannot be told. */
  | { reason: 'no_coordinates' };

const CONFIRM_RULE: ReadonlyMap<string, NonNullable<CommandSpec['confirm']>> = new Map(
  [...HOUSE_COMMANDS, ...Object.values(DEVICE_COMMANDS).flat()].flatMap((spec) =>
    spec.confirm ? [[spec.name, spec.confirm] as const] : [],
  ),
);

/**
 * Whether `command` needs a person's confirmation at `at` on `farm`, and why; null when it may go
 * ahead. `params` is part of the question because a rule may depend on them; none does today.
 */
export function needsConfirmation(
  command: string,
  _params: unknown,
  context: { farm: ConfirmPlace; at: number },
): ConfirmationNeed | null {
  const rule = CONFIRM_RULE.get(command);
  if (rule === undefined) return null;
  if (rule === 'always') return { reason: 'always' };
  const { farm, at } = context;
  if (farm.lat === null || farm.lon === null) return { reason: 'no_coordinates' };
  const darkness = darknessAt(at, farm.lat, farm.lon, farm.timezone);
  if (!darkness.dark) return null;
  return { reason: 'after_dark', lastSunset: darkness.lastSunset, nextSunrise: darkness.nextSunrise };
}
