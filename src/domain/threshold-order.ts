/**
 * The order a threshold rule's lines must keep to both fire and clear (a high-side rule: clear below watch,
 * watch at or below urgent), as a structured answer: which line, how, against which. The API's check of
 * `settings.rules` (rule-overrides.ts) words it in the catalog's units; the console's thresholds table says
 * it before saving in the reader's language and units. Apart from rule-overrides.ts so that page loads only
 * this (rule-overrides.ts and what it imports weighed the settings page past its 80 KB).
 */
import type { RuleDirection, RuleThresholds } from './rules.ts';

export const THRESHOLD_MEMBERS = ['watch', 'urgent', 'clear'] as const;
export type ThresholdMember = (typeof THRESHOLD_MEMBERS)[number];

/** How a line must stand against another: above or below it, strictly or not. */
export type LineRelation = 'below' | 'above' | 'at_or_below' | 'at_or_above';

/**
 * A rule's lines in an order that could not both fire and clear: `member` must be `relation` `other`
 * ("watch must be at or below urgent"). The member is the one to change: one the caller gave, when they
 * gave one of the two, so the error points at something they can change.
 */
export interface ThresholdOrderProblem {
  member: ThresholdMember;
  relation: LineRelation;
  other: ThresholdMember;
}

/**
 * Whether a rule's merged lines can both fire and clear; the API's check (`validateRuleOverrides`) and the
 * console's before it saves (which says it in the reader's language and units), so both blame one cell.
 * `given`: the members the caller sent.
 */
export function thresholdOrderProblem(
  direction: RuleDirection,
  t: RuleThresholds,
  given: ReadonlySet<ThresholdMember>,
): ThresholdOrderProblem | null {
  const high = direction === 'high';
  const pick = (preferred: ThresholdMember, other: ThresholdMember): ThresholdMember =>
    given.has(preferred) || !given.has(other) ? preferred : other;

  const clearOk = high ? t.clear < t.watch : t.clear > t.watch;
  if (!clearOk) {
    return pick('clear', 'watch') === 'clear'
      ? { member: 'clear', relation: high ? 'below' : 'above', other: 'watch' }
      : { member: 'watch', relation: high ? 'above' : 'below', other: 'clear' };
  }
  if (t.urgent !== null) {
    const urgentOk = high ? t.watch <= t.urgent : t.watch >= t.urgent;
    if (!urgentOk) {
      return pick('urgent', 'watch') === 'urgent'
        ? { member: 'urgent', relation: high ? 'at_or_above' : 'at_or_below', other: 'watch' }
        : { member: 'watch', relation: high ? 'at_or_below' : 'at_or_above', other: 'urgent' };
    }
  }
  return null;
}
