/**
 * What changing a rule does to what it already opened and counted. One function for a farm's own rules
 * (PATCH and DELETE /v1/rules/{id}) and for the built-in ones (PATCH of the farm's settings.rules): a
 * rule that stops applying as it did — disabled, deleted, or rewired to another name, metric, side,
 * scope or window — resolves its active alerts with a reason saying so, since no reading would ever
 * clear them; a sustained window counted under the old definition is forgotten.
 */

import type { Db } from '../../db/schema.ts';
import type { AlertWord } from '../../domain/alert-words.ts';
import { DEVICE_QUIET_RULE, INTAKE_DROP_RULE } from '../../domain/built-in-rules.ts';
import { waitForIntakePass } from '../alert-passes/intake.ts';
import { waitForQuietPass } from '../alert-passes/quiet.ts';
import { clearFarmQuiet } from '../alert-passes/repository.ts';
import { resolveAlertsOfRule } from '../alerts/service.ts';
import { builtInRules } from './built-in.ts';
import { deleteRuleBreaches } from './repository.ts';
import type { Rule } from './schemas.ts';

/** Members whose change means the open alerts no longer describe what the rule watches. */
const REWIRING_MEMBERS = [
  'name',
  'metric',
  'direction',
  'device_type',
  'device_id',
  'group_id',
  'window_s',
] as const satisfies ReadonlyArray<keyof Rule>;

/** The rules whose alerts a background pass opens, and how to wait for a pass in flight. */
const PASS_OF: Readonly<Record<string, (trx: Db) => Promise<void>>> = {
  [DEVICE_QUIET_RULE.name]: waitForQuietPass,
  [INTAKE_DROP_RULE.name]: waitForIntakePass,
};

/**
 * Why a rule's active alerts must close when it goes from `before` to `after` (null: deleted), or null: the
 * English the reason ends with, and the same as a note of the alert words for other languages.
 */
export function whyRuleAlertsClose(
  before: Rule,
  after: Rule | null,
): { why: string; note: AlertWord } | null {
  const change =
    after === null
      ? 'deleted'
      : before.enabled && !after.enabled
        ? 'disabled'
        : REWIRING_MEMBERS.some((m) => after[m] !== before[m])
          ? 'changed'
          : null;
  if (change === null) return null;
  return {
    why: `rule ${before.name} was ${change}`,
    note: { key: `resolved.rule_${change}`, params: { rule: before.name } },
  };
}

/**
 * Settles one rule's change inside the caller's transaction: resolves its active alerts (each with
 * `alert.resolved`) when it no longer applies as it did, and forgets its sustained windows when that
 * or its `for_s` changed. Returns how many alerts it resolved.
 */
export async function settleRuleChange(
  trx: Db,
  farmId: string,
  before: Rule,
  after: Rule | null,
  now: number,
): Promise<number> {
  const why = whyRuleAlertsClose(before, after);
  let resolved = 0;
  if (why) {
    await PASS_OF[before.name]?.(trx);
    resolved = await resolveAlertsOfRule(trx, farmId, before.name, why.why, now, why.note);
    // The quiet pass skips a device already marked quiet; once its alert is gone it must be seen afresh.
    if (before.name === DEVICE_QUIET_RULE.name) await clearFarmQuiet(trx, farmId);
  }
  if (why || after?.for_s !== before.for_s) await deleteRuleBreaches(trx, farmId, before.name);
  return resolved;
}

/** Settles every built-in rule a change of the farm's stored settings (text before and after) touched. */
export async function settleBuiltInRuleChanges(
  trx: Db,
  farmId: string,
  settingsBefore: string,
  settingsAfter: string,
  now: number,
): Promise<number> {
  if (settingsBefore === settingsAfter) return 0;
  const after = new Map(builtInRules(farmId, settingsAfter).map((r) => [r.name, r]));
  let resolved = 0;
  for (const before of builtInRules(farmId, settingsBefore)) {
    resolved += await settleRuleChange(trx, farmId, before, after.get(before.name) ?? null, now);
  }
  return resolved;
}
