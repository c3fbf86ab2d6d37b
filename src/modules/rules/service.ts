/**
 * A farm's own alert rules. They sit beside the built-in ones (overridable in settings.rules, see
 * built-in.ts), run in the same engine and open alerts under their name. A rule that stops applying as
 * it did resolves its active alerts (changes.ts, shared with the built-in rules).
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { isBuiltInRuleName } from '../../domain/built-in-rules.ts';
import { conflict, invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { requireReference } from '../records/references.ts';
import { builtInRules } from './built-in.ts';
import { settleRuleChange } from './changes.ts';
import {
  countFarmRules,
  deleteRuleRow,
  findFarmRules,
  findRuleByName,
  insertRule,
  loadRule,
  type RuleRow,
  toRule,
  updateRule,
} from './repository.ts';
import type { CreateRuleInput, Rule, UpdateRuleInput } from './schemas.ts';

/** The engine loads every enabled custom rule of a farm per report; this keeps that load small. */
export const MAX_RULES_PER_FARM = 100;

/** The farm's effective rules: the defaults with its overrides, then its own rules oldest first. */
export async function listRules(db: Db, scope: Scope, farmId: string): Promise<{ data: Rule[] }> {
  const farm = await requireFarm(db, scope, farmId);
  const custom = await findFarmRules(db, farm.id);
  return { data: [...builtInRules(farm.id, farm.settings), ...custom.map(toRule)] };
}

export async function getRule(db: Db, scope: Scope, id: string): Promise<Rule> {
  return toRule(await loadRule(db, scope, id));
}

/**
 * The checks the schema cannot make, on the rule as it will be stored: the lines must be in an
 * order that can fire and clear (as for the defaults), and scope references must be on the farm.
 * Errors name the member the caller can change.
 */
async function checkRule(db: Db, row: RuleRow, given: ReadonlySet<string>): Promise<void> {
  if (isBuiltInRuleName(row.name)) {
    throw invalid(
      'name',
      `"${row.name}" is a default rule; override it in settings.rules or pick another name.`,
    );
  }
  const above = row.direction === 'above';
  const blame = (preferred: string, other: string): string =>
    given.has(preferred) || !given.has(other) ? preferred : other;
  const clearOk = above ? row.clear < row.watch : row.clear > row.watch;
  if (!clearOk) {
    throw invalid(
      blame('clear', 'watch'),
      `clear (${row.clear}) must be ${above ? 'below' : 'above'} watch (${row.watch}) for a rule ${row.direction} ` +
        'the line, otherwise an alert could never resolve.',
    );
  }
  if (row.urgent !== null && (above ? row.urgent < row.watch : row.urgent > row.watch)) {
    throw invalid(
      blame('urgent', 'watch'),
      `urgent (${row.urgent}) must be ${above ? 'at or above' : 'at or below'} watch (${row.watch}).`,
    );
  }
  if (row.device_id !== null && given.has('device_id')) {
    await requireReference(db, row.farm_id, 'device', row.device_id, 'device_id');
  }
  if (row.group_id !== null && given.has('group_id')) {
    await requireReference(db, row.farm_id, 'group', row.group_id, 'group_id');
  }
}

async function requireFreeName(db: Db, farmId: string, name: string, selfId: string | null): Promise<void> {
  const other = await findRuleByName(db, farmId, name);
  if (other && other.id !== selfId) {
    throw conflict(`This farm already has a rule named "${name}" (${other.id}).`, 'name');
  }
}

export async function createRule(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateRuleInput,
  now: number = Date.now(),
): Promise<Rule> {
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const row: RuleRow = {
      id: newId('rule', now),
      farm_id: farm.id,
      name: input.name,
      kind: input.kind ?? 'threshold',
      metric: input.metric,
      ...lines(input),
      device_type: input.device_type ?? null,
      device_id: input.device_id ?? null,
      group_id: input.group_id ?? null,
      for_s: input.for_s ?? null,
      enabled: input.enabled === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    await checkRule(trx, row, new Set(Object.keys(input)));
    await requireFreeName(trx, farm.id, row.name, null);
    if ((await countFarmRules(trx, farm.id)) >= MAX_RULES_PER_FARM) {
      throw invalid(
        'name',
        `A farm can have at most ${MAX_RULES_PER_FARM} rules of its own; delete one first.`,
      );
    }
    await insertRule(trx, row);
    return toRule(row);
  });
}

const THRESHOLD_ONLY = ['direction', 'watch', 'urgent', 'clear'] as const;
const RATE_ONLY = ['change', 'window_s'] as const;

/**
 * The lines a rule is stored with. A rate rule is given as `change` within `window_s`; its lines
 * derive from it (watch at the change, clear at half of it, on the change's side), so the engine runs
 * it with the threshold machinery on the change over the window.
 */
function lines(
  input: UpdateRuleInput & { kind?: 'threshold' | 'rate' | undefined },
): Pick<RuleRow, 'direction' | 'watch' | 'urgent' | 'clear' | 'change' | 'window_s'> {
  if (input.kind === 'rate') {
    for (const member of THRESHOLD_ONLY) {
      if (input[member] !== undefined) {
        throw invalid(member, `A rate rule takes change and window_s, not ${member}.`);
      }
    }
    for (const member of RATE_ONLY) {
      if (input[member] === undefined) throw invalid(member, `A rate rule needs ${member}.`);
    }
    return rateLines(input.change as number, input.window_s as number);
  }
  for (const member of RATE_ONLY) {
    if (input[member] !== undefined) {
      throw invalid(
        member,
        `${member} is for rate rules (kind "rate"); a threshold rule takes watch and clear.`,
      );
    }
  }
  for (const member of ['direction', 'watch', 'clear'] as const) {
    if (input[member] === undefined) throw invalid(member, `A threshold rule needs ${member}.`);
  }
  return {
    direction: input.direction as RuleRow['direction'],
    watch: input.watch as number,
    urgent: input.urgent ?? null,
    clear: input.clear as number,
    change: null,
    window_s: null,
  };
}

function rateLines(
  change: number,
  windowS: number,
): Pick<RuleRow, 'direction' | 'watch' | 'urgent' | 'clear' | 'change' | 'window_s'> {
  if (change === 0) throw invalid('change', 'change must not be 0: say how far the reading moves, signed.');
  return {
    direction: change < 0 ? 'below' : 'above',
    watch: change,
    urgent: null,
    clear: change / 2,
    change,
    window_s: windowS,
  };
}

export async function updateRuleById(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateRuleInput,
  now: number = Date.now(),
): Promise<Rule> {
  return inTransaction(db, async (trx) => {
    const row = await loadRule(trx, scope, id);
    const next: RuleRow = { ...row, updated_at: now };
    const wrongKind = row.kind === 'rate' ? THRESHOLD_ONLY : RATE_ONLY;
    for (const member of wrongKind) {
      if (patch[member] !== undefined) throw invalid(member, `A ${row.kind} rule has no ${member}.`);
    }
    for (const [member, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      if (member === 'enabled') next.enabled = value ? 1 : 0;
      else Object.assign(next, { [member]: value });
    }
    if (row.kind === 'rate') Object.assign(next, rateLines(next.change ?? 0, next.window_s ?? 0));
    await checkRule(trx, next, new Set(Object.keys(patch)));
    if (next.name !== row.name) await requireFreeName(trx, row.farm_id, next.name, row.id);
    await updateRule(trx, next);
    await settleRuleChange(trx, row.farm_id, toRule(row), toRule(next), now);
    return toRule(next);
  });
}

export async function deleteRule(
  db: Db,
  scope: Scope,
  id: string,
  now: number = Date.now(),
): Promise<{ id: string; deleted: true }> {
  return inTransaction(db, async (trx) => {
    const row = await loadRule(trx, scope, id);
    await settleRuleChange(trx, row.farm_id, toRule(row), null, now);
    await deleteRuleRow(trx, row);
    return { id: row.id, deleted: true };
  });
}
