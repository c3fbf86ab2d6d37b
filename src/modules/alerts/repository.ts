/** Alert queries and the one row → Alert mapping. */
import { type Expression, type Selectable, type SqlBool, sql, type Updateable } from 'kysely';
import { runNamed } from '../../db/named-statements.ts';
import { prepared } from '../../db/prepared.ts';
import type { Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import type { AlertSeverity, AlertsTable } from '../../db/tables/alerts.ts';
import { ACTIVE_ALERT_PREDICATE } from '../../db/tables/alerts.ts';
import { parseAlertWords } from '../../domain/alert-words.ts';
import { ACTIVE_ALERT_STATUSES, type AlertStatus } from '../../domain/statuses.ts';
import { toIso } from '../../lib/time.ts';
import type { Alert } from './schemas.ts';

export type AlertRow = Selectable<AlertsTable>;

export const ACTIVE_STATUSES: readonly AlertStatus[] = ACTIVE_ALERT_STATUSES;

/**
 * The active statuses written into a statement's text, not sent as parameters, for the statements that run
 * as named ones (db/prepared.ts, runNamed) and read alerts by subject. A named statement soon runs on
 * PostgreSQL's generic plan, which sees no parameter's value: with `status in ($1, $2)` it could not use the
 * partial index of active alerts (alerts_one_active) and read every alert the farm ever had, resolved ones
 * included, for each group of reports (the benchmark's PostgreSQL time per 100-reading report grew with the
 * table). With the statuses as literals the index's condition is seen to hold.
 */
export const ACTIVE_STATUS_LITERALS = statusLiterals(ACTIVE_STATUSES);

/** Statuses as literals in a statement's text (ACTIVE_STATUS_LITERALS says why). */
function statusLiterals(statuses: readonly AlertStatus[]) {
  return statuses.map((status) => sql.lit(status));
}

/** Lists sort on this rank: most urgent first. */
export const SEVERITY_RANK: Readonly<Record<AlertSeverity, number>> = { urgent: 0, watch: 1, info: 2 };

export function toAlert(row: AlertRow): Alert {
  return {
    id: row.id,
    farm_id: row.farm_id,
    severity: row.severity,
    title: row.title,
    reason: row.reason,
    rule: row.rule,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    status: row.status,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
    acknowledged_at: toIso(row.acknowledged_at),
    acknowledged_by: row.acknowledged_by,
    resolved_at: toIso(row.resolved_at),
    words: parseAlertWords(row.words),
  };
}

export interface AlertKey {
  farmId: string;
  rule: string;
  subjectType: string;
  subjectId: string;
}

/** An alert by id, whatever the scope (the notification workers and acknowledge tokens read it). */
export function findAlertById(db: Db, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The active (open or acknowledged) alert for a farm, rule and subject, if there is one. */
export async function findActiveAlert(db: Db, key: AlertKey): Promise<AlertRow | undefined> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', key.farmId)
    .where('rule', '=', key.rule)
    .where('subject_type', '=', key.subjectType)
    .where('subject_id', '=', key.subjectId)
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirst();
}

/** A farm's active alerts opened by one rule, whatever their subject. */
export async function findActiveAlertsOfRule(db: Db, farmId: string, rule: string): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('rule', '=', rule)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

/** A farm's active alerts about one subject, whatever their rule. */
export async function findActiveAlertsOfSubject(
  db: Db,
  farmId: string,
  subjectType: string,
  subjectId: string,
): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('farm_id', '=', farmId)
    .where('subject_type', '=', subjectType)
    .where('subject_id', '=', subjectId)
    .where('status', 'in', ACTIVE_STATUSES)
    .execute();
}

/**
 * Inserts an active alert unless one is already active for its farm, rule and subject (the unique
 * partial index decides, so a concurrent transaction's alert counts too). Returns the new row, or
 * null when another active alert holds the slot. The conflict target repeats the index predicate
 * as literal SQL so both engines match it to the partial index.
 */
export function insertActiveAlert(db: Db, row: AlertRow): Promise<AlertRow | null> {
  return batchedCall(db, INSERT_ACTIVE_BATCH, row);
}

/**
 * The alerts a group's reports open (statement-batch.ts), in one insert. A row whose slot an earlier row of
 * the same insert took is skipped as if another transaction held it, so its unit re-reads and updates that
 * one, as it would have done one report after the other.
 */
const INSERT_ACTIVE_BATCH: BatchKind<AlertRow, AlertRow | null> = {
  async run(db, rows) {
    const inserted = new Map((await insertActiveAlerts(db, rows)).map((r) => [r.id, r]));
    return rows.map((r) => inserted.get(r.id) ?? null);
  },
};

/** Built once per number of rows (and columns left null). */
const insertActiveAlerts = prepared((db, rows: readonly AlertRow[]) =>
  db
    .insertInto('alerts')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['farm_id', 'rule', 'subject_type', 'subject_id'])
        .where(sql<SqlBool>`${sql.raw(ACTIVE_ALERT_PREDICATE)}`)
        .doNothing(),
    )
    .returningAll(),
);

/**
 * Updates an alert only while it is in one of `from` (and, optionally, at `severity`); returns the
 * updated row, or null when the alert had already moved on. Conditional updates make each
 * transition happen once even when two transactions race for it.
 */
export async function transitionAlert(
  db: Db,
  id: string,
  from: readonly AlertStatus[],
  set: Updateable<AlertsTable>,
  onlySeverity?: AlertSeverity,
): Promise<AlertRow | null> {
  return batchedCall(db, TRANSITION_BATCH, { id, from, set, onlySeverity }, transitionOne);
}

interface Transition {
  id: string;
  from: readonly AlertStatus[];
  set: Updateable<AlertsTable>;
  onlySeverity: AlertSeverity | undefined;
}

async function transitionOne(db: Db, q: Transition): Promise<AlertRow | null> {
  const [row] = await transitionAlertRow(db, q);
  return row ?? null;
}

/**
 * The alert transitions of a group's reports (statement-batch.ts): one update per kind of transition (the
 * columns it sets, the statuses and severity it expects). An alert that two reports
 * of the group both move (two devices of one animal) is moved by the first in the batch and then by the
 * later ones one at a time, in order, each finding the alert as the one before left it, as one report
 * after the other would.
 */
const TRANSITION_BATCH: BatchKind<Transition, AlertRow | null> = {
  async run(db, calls) {
    const answers: Array<AlertRow | null> = calls.map(() => null);
    const seen = new Set<string>();
    const later: number[] = [];
    const shapes = new Map<string, number[]>();
    for (const [i, q] of calls.entries()) {
      if (seen.has(q.id)) {
        later.push(i);
        continue;
      }
      seen.add(q.id);
      const shape = `${setColumns(q).join(',')}|${q.from.join(',')}|${q.onlySeverity ?? ''}`;
      const places = shapes.get(shape);
      if (places) places.push(i);
      else shapes.set(shape, [i]);
    }
    await Promise.all(
      [...shapes.values()].map(async (places) => {
        const group = places.map((i) => calls[i] as Transition);
        const rows =
          group.length === 1
            ? [await transitionOne(db, group[0] as Transition)]
            : await transitionMany(db, group);
        for (const [k, i] of places.entries()) answers[i] = rows[k] ?? null;
      }),
    );
    for (const i of later) answers[i] = await transitionOne(db, calls[i] as Transition);
    return answers;
  },
};

/** The columns a transition sets (as Kysely's `set`, a column given as undefined is left as it is). */
function setColumns(q: Transition): Array<keyof AlertsTable> {
  return (Object.keys(q.set) as Array<keyof AlertsTable>).filter((c) => q.set[c] !== undefined);
}

/**
 * PostgreSQL: transitions of one shape (the same columns set, statuses and severity expected), as one update;
 * the values go as JSON read with the alerts table's own row type. The statuses are written into the text
 * (ACTIVE_STATUS_LITERALS says why): with them as parameters, the generic plan of this named statement read
 * every alert of the table to join the few the JSON names.
 */
async function transitionMany(db: Db, group: readonly Transition[]): Promise<Array<AlertRow | null>> {
  const [first] = group as [Transition];
  const columns = setColumns(first);
  const values = group.map((q) => ({ ...q.set, id: q.id }));
  const rows = await runNamed(
    db,
    sql<AlertRow>`
    update alerts set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = v.${sql.ref(c)}`))}
    from json_populate_recordset(null::alerts, ${JSON.stringify(values)}::json) as v
    where alerts.id = v.id and alerts.status in (${sql.join(statusLiterals(first.from))})${
      first.onlySeverity === undefined ? sql`` : sql` and alerts.severity = ${first.onlySeverity}`
    }
    returning alerts.*`,
  );
  const updated = new Map(rows.map((r) => [r.id, r]));
  return group.map((q) => updated.get(q.id) ?? null);
}

/** Built once per set of columns, number of statuses, and with or without the severity. */
const transitionAlertRow = prepared((db, q: Transition) => {
  let query = db.updateTable('alerts').set(q.set).where('id', '=', q.id).where('status', 'in', q.from);
  if (q.onlySeverity !== undefined) query = query.where('severity', '=', q.onlySeverity);
  return query.returningAll();
});

/** A page of a farm's alerts in list order (most urgent, then newest), `limit` rows. */
export async function findAlertsPage(
  db: Db,
  farmId: string,
  status: 'active' | 'all' | AlertStatus,
  condition: Expression<SqlBool>,
  limit: number,
): Promise<AlertRow[]> {
  let query = db.selectFrom('alerts').selectAll().where('farm_id', '=', farmId);
  if (status === 'active') query = query.where('status', 'in', ACTIVE_STATUSES);
  else if (status !== 'all') query = query.where('status', '=', status);
  return query
    .where(condition)
    .orderBy('severity_rank', 'asc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
