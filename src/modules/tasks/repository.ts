import type { Selectable } from 'kysely';
import type { TasksTable } from '../../db/tables/records.ts';
import { toIso } from '../../lib/time.ts';
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
