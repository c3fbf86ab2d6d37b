import { invalid } from '../../http/errors.ts';
import { parseIso } from '../../lib/time.ts';

/**
 * An input date or date-time (already format-checked by the route schema; checked again for callers
 * that skip it, such as MCP tools) as epoch ms; null and absent stay null.
 */
export function parseDateInput(param: string, text: string): number;
export function parseDateInput(param: string, text: string | null | undefined): number | null;
export function parseDateInput(param: string, text: string | null | undefined): number | null {
  if (text === null || text === undefined) return null;
  const ms = parseIso(text);
  if (ms === null) throw invalid(param, `${param} must be an ISO 8601 date or date-time.`);
  return ms;
}
