/** Custom rule queries and the mappings row → API Rule and row → the engine's rule. */
import type { Selectable } from 'kysely';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import type { RulesTable } from '../../db/tables/rules.ts';
import { METRIC_BY_NAME } from '../../domain/metrics.ts';
import type { AlertRule } from '../../domain/rules.ts';
import { toIso } from '../../lib/time.ts';
import type { Scope } from '../farms/access.ts';
import { loadScoped } from '../records/scoped.ts';
import type { Rule } from './schemas.ts';

export type RuleRow = Selectable<RulesTable>;

/** Where a rule applies; null members do not narrow it. */
export interface RuleScope {
  device_type: string | null;
  device_id: string | null;
  group_id: string | null;
}

/** A rule as the engine runs it: a default or custom threshold rule, its scope and sustain time. */
export interface EngineRule extends Omit<AlertRule, 'name' | 'metric'> {
  name: string;
  metric: string;
  /** Seconds the condition must hold before an alert opens; null opens at once. */
  for_s: number | null;
  scope: RuleScope | null;
  /**
   * Rate rules: the window in seconds. The engine then classifies each reading's change over the
   * window (watch = the rule's change, clear = half of it) instead of the reading itself.
   */
  window_s: number | null;
}

export function toRule(row: RuleRow): Rule {
  return {
    id: row.id,
    farm_id: row.farm_id,
    name: row.name,
    source: 'custom',
    kind: row.kind,
    metric: row.metric,
    direction: row.direction,
    watch: row.watch,
    urgent: row.urgent,
    clear: row.clear,
    device_type: row.device_type,
    device_id: row.device_id,
    group_id: row.group_id,
    for_s: row.for_s,
    change: row.change,
    window_s: row.window_s,
    quiet_after_s: null,
    drop_pct: null,
    enabled: row.enabled === 1,
    description: null,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** Titles and reasons of a farm's own rule name its metric as the metric table does. */
function ruleWords(row: RuleRow): { title: string; measure: string } {
  const meaning = METRIC_BY_NAME.get(row.metric)?.meaning ?? row.metric;
  const measure = meaning.charAt(0).toUpperCase() + meaning.slice(1);
  const rising = row.direction === 'above';
  if (row.kind === 'rate') return { title: `${measure} ${rising ? 'rising' : 'dropping'} fast`, measure };
  return { title: `${measure} ${rising ? 'high' : 'low'}`, measure };
}

export function toEngineRule(row: RuleRow): EngineRule {
  return {
    name: row.name,
    metric: row.metric,
    direction: row.direction === 'above' ? 'high' : 'low',
    watch: row.watch,
    urgent: row.urgent,
    clear: row.clear,
    ...ruleWords(row),
    description: `The farm's own rule on ${row.metric}.`,
    for_s: row.for_s,
    window_s: row.kind === 'rate' ? row.window_s : null,
    scope: { device_type: row.device_type, device_id: row.device_id, group_id: row.group_id },
  };
}

/** A farm's custom rules, oldest first (the order they were added). */
export async function findFarmRules(db: Db, farmId: string, onlyEnabled = false): Promise<RuleRow[]> {
  return selectFarmRules(db, { farmId, onlyEnabled });
}

/** Built once per engine for each case (every rule, or the enabled ones: ingest asks on every report). */
const selectFarmRules = prepared((db, q: { farmId: string; onlyEnabled: boolean }) =>
  db
    .selectFrom('rules')
    .selectAll()
    .where('farm_id', '=', q.farmId)
    .$if(q.onlyEnabled, (qb) => qb.where('enabled', '=', 1))
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc'),
);

export async function countFarmRules(db: Db, farmId: string): Promise<number> {
  const row = await db
    .selectFrom('rules')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('farm_id', '=', farmId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findRuleByName(db: Db, farmId: string, name: string): Promise<RuleRow | undefined> {
  return db
    .selectFrom('rules')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** The rule if its farm is in the scope, else 404. */
export async function loadRule(db: Db, scope: Scope, id: string): Promise<RuleRow> {
  return loadScoped(db, scope, 'rule', id);
}

/**
 * Every write to a farm's rules bumps the farm's rules version in the same transaction (the callers hold
 * one), so a process's cached rules for the farm are never used with a newer version (alerts/rule-cache.ts).
 */
export async function bumpRulesVersion(db: Db, farmId: string): Promise<void> {
  await db
    .updateTable('farms')
    .set((eb) => ({ rules_version: eb('rules_version', '+', 1) }))
    .where('id', '=', farmId)
    .execute();
}

export async function insertRule(db: Db, row: RuleRow): Promise<void> {
  await db.insertInto('rules').values(row).execute();
  await bumpRulesVersion(db, row.farm_id);
}

export async function updateRule(db: Db, row: RuleRow): Promise<void> {
  const { id, farm_id: _farm, created_at: _created, ...set } = row;
  await db.updateTable('rules').set(set).where('id', '=', id).execute();
  await bumpRulesVersion(db, row.farm_id);
}

export async function deleteRuleRow(db: Db, row: RuleRow): Promise<void> {
  await db.deleteFrom('rules').where('id', '=', row.id).execute();
  await bumpRulesVersion(db, row.farm_id);
}

/** Forgets the sustained windows a rule has counted (it changed, or went away). */
export async function deleteRuleBreaches(db: Db, farmId: string, rule: string): Promise<void> {
  await db.deleteFrom('alert_breaches').where('farm_id', '=', farmId).where('rule', '=', rule).execute();
}
