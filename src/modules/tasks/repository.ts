import type { Selectable } from 'kysely';
import { fetchPage, type Page, type PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { TasksTable } from '../../db/tables/records.ts';
import { TASK_STATUS } from '../../domain/tasks.ts';
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
    assignee: row.assignee,
    status: row.status,
    subject_type: row.subject_type,
    subject_id: row.subject_id,
    alert_id: row.alert_id,
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
  return fetchPage(query, page, toTask);
}

/** The status guard makes a concurrent second call a no-op instead of moving done_at. */
export async function markTaskDone(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('tasks')
    .set({ status: TASK_STATUS.done, done_at: now })
    .where('id', '=', id)
    .where('status', '!=', TASK_STATUS.done)
    .execute();
}
