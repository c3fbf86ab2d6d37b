/**
 * A scale indicator's serial line read as a weight (the chute page, issue 47; web/scale.ts reads the lines
 * over Web Serial). Indicators stream one ASCII line per reading (or one per "print"/"send" press), ended by
 * CR, LF or both, and the lines differ by maker and setting (docs/console.md "The chute page"). What they
 * share, and what `readIndicatorLine` reads: one number with an optional sign and decimal point, a unit (kg
 * or lb; none is taken as kg), and a mark while the weight still moves (ST/US, a motion letter M, `?`, `*`
 * or the word "motion"). Control characters (STX, ETX) and labels (GS, NT, G, N, "W:") are skipped, an EID
 * in the same line is not taken for the weight, and overload or error lines give nothing.
 */

/** One reading of the indicator. */
export interface Reading {
  kg: number;
  /** False while the indicator says the weight still moves. */
  stable: boolean;
}

const LB_IN_KG = 0.45359237;
// STX/ETX and other control characters some indicators frame their lines with.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the indicators' framing characters
const CONTROL = /[\u0000-\u001f\u007f]/g;
const NUMBER = /([+-]?)\s*(\d+(?:\.\d+)?)\s*(kg|kgs|lb|lbs|k|l)?\b/gi;
/** More integer digits than any weight: an EID (15 digits) or a date in the same line. */
const TOO_LONG = 6;
const MOVING = /(^|[\s,])(US|M|MO|motion|unstable)([\s,]|$)|[?*]/i;

/** A weight in an indicator's line, or null when it holds none (a header, a blank, an overload). */
export function readIndicatorLine(raw: string): Reading | null {
  const line = raw.replace(CONTROL, ' ').trim();
  if (!line || /overload|underload|\b(OL|UL|ERR)\b|--/i.test(line)) return null;
  // The number with a unit, else the last one short enough to be a weight (a line may hold the EID too).
  const numbers = [...line.matchAll(NUMBER)].filter(
    (m) => ((m[2] ?? '').split('.')[0]?.replace(/^0+/, '').length ?? 0) <= TOO_LONG,
  );
  const found = numbers.find((m) => m[3]) ?? numbers.at(-1);
  if (!found) return null;
  const [, sign = '', digits = '', unit = 'kg'] = found;
  let kg = Number(digits);
  if (!Number.isFinite(kg)) return null;
  if (sign === '-') kg = -kg;
  if (/^l/i.test(unit)) kg *= LB_IN_KG;
  const rest = line.slice(0, found.index) + line.slice(found.index + found[0].length);
  return { kg: Math.round(kg * 10) / 10, stable: !MOVING.test(rest) };
}
