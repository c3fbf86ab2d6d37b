import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { TasksTable } from '../../db/tables/records.ts';
import { TASK_STATUS } from '../../domain/tasks.ts';
import { localDateStart } from '../../lib/local-time.ts';
import { toIso } from '../../lib/time.ts';
import type { Task, TaskFilters } from './schemas.ts';

export type TaskRow = Selectable<TasksTable>;

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    farm_id: row.farm_id,
    title: row.title,
    notes: row.notes,
    due_at: toIso(row.due_at),
    due_date: row.due_date,
    assignee: row.assignee,
    status: row.status,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    alert_id: row.alert_id,
    paddock_id: row.paddock_id,
    done_at: toIso(row.done_at),
    created_at: toIso(row.created_at),
  };
}

/** A farm's tasks, newest first, one page. */
export async function taskPage(
  db: Db,
  farmId: string,
  filters: TaskFilters,
  page: PageRequest,
): Promise<Page<Task>> {
  let query = db.selectFrom('tasks').selectAll().where('farm_id', '=', farmId);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.assignee !== undefined) query = query.where('assignee', '=', filters.assignee);
  if (filters.subject_id !== undefined) query = query.where('subject_id', '=', filters.subject_id);
  if (filters.paddock_id !== undefined) query = query.where('paddock_id', '=', filters.paddock_id);
  return fetchPage(query, page, toTask);
}

/**
 * The status guard makes a concurrent second call a no-op instead of moving done_at; whether this call
 * marked it (and so records what being done brings, such as a move) is what it returns.
 */
export async function markTaskDone(db: Db, id: string, now: number): Promise<boolean> {
  const marked = await db
    .updateTable('tasks')
    .set({ status: TASK_STATUS.done, done_at: now })
    .where('id', '=', id)
    .where('status', '!=', TASK_STATUS.done)
    .returning('id')
    .execute();
  return marked.length > 0;
}

/**
 * After a farm's time zone changes, its tasks due on a day start that day at the new zone's midnight (the
 * day they are due on stays the one they were given).
 */
export async function rezoneDueDates(db: Db, farmId: string, timeZone: string): Promise<number> {
  const rows = await db
    .selectFrom('tasks')
    .select(['id', 'due_date'])
    .where('farm_id', '=', farmId)
    .where('due_date', 'is not', null)
    .execute();
  for (const row of rows) {
    if (row.due_date === null) continue;
    await db
      .updateTable('tasks')
      .set({ due_at: localDateStart(row.due_date, timeZone) })
      .where('id', '=', row.id)
      .execute();
  }
  return rows.length;
}
