/**
 * The confirm rule of house_command. The spec asks clients to confirm with the farmer before moving
 * a house or opening doors after dark, and the domain registry marks move.start and move.to_paddock
 * ("Confirm with the farmer before moving a house") and doors.open ("…opening doors after dark") with
 * those cautions. An agent is such a client, so the tool enforces them: without `confirm: true` it
 * refuses, says why, and says what to ask the farmer.
 *
 * "After dark" is the sun below the horizon at the farm's coordinates (sunset to sunrise), the
 * cautious reading of "between dusk and dawn". A farm without coordinates cannot tell, so opening
 * doors there always needs the confirmation.
 */
import { darknessAt, localClock } from '../../lib/solar.ts';

export const MOVE_COMMANDS: readonly string[] = ['move.start', 'move.to_paddock'];
export const AFTER_DARK_COMMANDS: readonly string[] = ['doors.open'];

export interface FarmPlace {
  name: string;
  timezone: string;
  lat: number | null;
  lon: number | null;
}

/**
 * Why `command` needs the farmer's confirmation right now, as text for the agent, or null when it
 * may go ahead without one.
 */
export function confirmationNeeded(
  command: string,
  houseName: string,
  farm: FarmPlace,
  now: number,
): string | null {
  const askAgain = 'If they agree, call house_command again with the same arguments and confirm: true.';
  if (MOVE_COMMANDS.includes(command)) {
    return `Not sent: ${command} moves the house "${houseName}" (and the birds in it) across the paddock, and a house is only moved with the farmer's OK. Ask the farmer: "Shall I ${
      command === 'move.to_paddock' ? 'move' : 'start moving'
    } ${houseName} now?" ${askAgain}`;
  }
  if (!AFTER_DARK_COMMANDS.includes(command)) return null;
  const ask = `Ask the farmer: "It's dark at ${farm.name}; do you really want the pop doors of ${houseName} opened now?" ${askAgain}`;
  if (farm.lat === null || farm.lon === null) {
    return `Not sent: the farm "${farm.name}" has no coordinates (lat/lon), so I cannot tell whether it is dark there, and doors opened after dark let predators reach the birds. ${ask.replace("It's dark at", 'It may be dark at')} (Setting the farm's lat and lon lets this check work.)`;
  }
  const darkness = darknessAt(now, farm.lat, farm.lon, farm.timezone);
  if (!darkness.dark) return null;
  const when = [
    darkness.lastSunset !== null ? `sunset was at ${localClock(darkness.lastSunset, farm.timezone)}` : null,
    darkness.nextSunrise !== null ? `sunrise is at ${localClock(darkness.nextSunrise, farm.timezone)}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `Not sent: it is dark at ${farm.name} now (${when || 'the sun is below the horizon'}, ${farm.timezone} time), and pop doors opened after dark let predators reach the birds. ${ask}`;
}
