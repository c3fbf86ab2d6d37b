/**
 * The confirm rule of house_command, in words for an agent. Which commands need the farmer's
 * confirmation, and when, is the domain's `needsConfirmation` (from the registry); an agent is a
 * client the spec asks to confirm, so the tool enforces it: without `confirm: true` it refuses, says
 * why, and says what to ask the farmer.
 */
import { needsConfirmation } from '../../domain/confirmation.ts';
import { localClock } from '../../lib/solar.ts';

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
  params: Record<string, unknown> = {},
): string | null {
  const need = needsConfirmation(command, params, { farm, at: now });
  if (need === null) return null;
  const askAgain = 'If they agree, call house_command again with the same arguments and confirm: true.';
  if (need.reason === 'always') {
    return `Not sent: ${command} moves the house "${houseName}" (and the birds in it) across the paddock, and a house is only moved with the farmer's OK. Ask the farmer: "Shall I ${
      command === 'move.to_paddock' ? 'move' : 'start moving'
    } ${houseName} now?" ${askAgain}`;
  }
  const ask = `Ask the farmer: "It's dark at ${farm.name}; do you really want the pop doors of ${houseName} opened now?" ${askAgain}`;
  if (need.reason === 'no_coordinates') {
    return `Not sent: the farm "${farm.name}" has no coordinates (lat/lon), so I cannot tell whether it is dark there, and doors opened after dark let predators reach the birds. ${ask.replace("It's dark at", 'It may be dark at')} (Setting the farm's lat and lon lets this check work.)`;
  }
  const when = [
    need.lastSunset !== null ? `sunset was at ${localClock(need.lastSunset, farm.timezone)}` : null,
    need.nextSunrise !== null ? `sunrise is at ${localClock(need.nextSunrise, farm.timezone)}` : null,
  ]
    .filter(Boolean)
    .join(', ');
  return `Not sent: it is dark at ${farm.name} now (${when || 'the sun is below the horizon'}, ${farm.timezone} time), and pop doors opened after dark let predators reach the birds. ${ask}`;
}
