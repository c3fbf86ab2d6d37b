import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { TasksTable } from '../../db/tables/records.ts';
import { notFound } from '../../http/errors.ts';
import { toIso } from '../../lib/time.ts';
import { farmInScope, type Scope } from '../farms/access.ts';
import type { Task } from './schemas.ts';

export type TaskRow = Selectable<TasksTable>;

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    farm_id: row.farm_id,
    title: row.title,
    notes: row.notes,
    due_at: toIso(row.due_at),
    assignee: row.assignee,
    status: row.status,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    alert_id: row.alert_id,
    done_at: toIso(row.done_at),
    created_at: toIso(row.created_at),
  };
}

/** The task if its farm is in the scope, else 404. */
export async function loadTask(db: Db, scope: Scope, id: string): Promise<TaskRow> {
  const row = await db
    .selectFrom('tasks')
    .innerJoin('farms', 'farms.id', 'tasks.farm_id')
    .selectAll('tasks')
    .where('tasks.id', '=', id)
    .where('farms.account_id', '=', scope.accountId)
    .where('farms.mode', '=', scope.mode)
    .where(farmInScope(scope))
    .executeTakeFirst();
  if (!row) throw notFound('task', id);
  return row;
}
