import type { Page, PageRequest } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { inTransaction, lockRows } from '../../db/transaction.ts';
import { invalid } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { TASK_STATUS } from '../../domain/tasks.ts';
import { recordMove } from '../events/service.ts';
import { requireFarm, type Scope } from '../farms/access.ts';
import { parseDateInput, parseFarmDayInput } from '../records/inputs.ts';
import { patchSubject, requireReference, resolveSubject } from '../records/references.ts';
import { deleteRecord, insertRecord, loadScoped, saveRecord } from '../records/scoped.ts';
import { isMovableKind } from '../stays/service.ts';
import { markTaskDone, type TaskRow, taskPage, toTask } from './repository.ts';
import type { CompleteTaskInput, CreateTaskInput, Task, TaskFilters, UpdateTaskInput } from './schemas.ts';

const DONE = TASK_STATUS.done;

/** done_at follows status: set when a task becomes done, kept while it stays done, cleared otherwise. */
function doneAtFor(status: string, previous: TaskRow | null, now: number): number | null {
  if (status !== DONE) return null;
  return previous?.status === DONE ? previous.done_at : now;
}

/**
 * A task's destination paddock must be on the farm, and the task's subject what a move moves: an animal
 * or a group.
 */
async function checkDestination(db: Db, farmId: string, row: TaskRow): Promise<void> {
  if (row.paddock_id === null) return;
  await requireReference(db, farmId, 'paddock', row.paddock_id, 'paddock_id');
  if (!isMovableKind(row.subject_type) || row.subject_id === null) {
    const subject = row.subject_id
      ? `its subject is a ${row.subject_type ?? 'record of another kind'}`
      : 'it has none';
    throw invalid(
      'paddock_id',
      `A task with paddock_id moves its subject there when done, so subject_id must be an animal or group (${subject}).`,
    );
  }
}

/**
 * A task that has just become done moves its animal or group to its paddock, through the same function as
 * a `move` event (reason `task`, the task's id in the event's data), at the time the task was done. Called
 * once per transition to done.
 */
async function moveOnDone(trx: Db, row: TaskRow, at: number, now: number): Promise<void> {
  if (row.paddock_id === null || !isMovableKind(row.subject_type) || row.subject_id === null) return;
  await recordMove(
    trx,
    row.farm_id,
    {
      subject_type: row.subject_type,
      subject_id: row.subject_id,
      data: { to_paddock_id: row.paddock_id, reason: 'task', task_id: row.id },
      at,
    },
    now,
  );
}

export async function listTasks(
  db: Db,
  scope: Scope,
  farmId: string,
  filters: TaskFilters,
  page: PageRequest,
): Promise<Page<Task>> {
  const farm = await requireFarm(db, scope, farmId);
  return taskPage(db, farm.id, filters, page);
}

export async function getTask(db: Db, scope: Scope, id: string): Promise<Task> {
  return toTask(await loadScoped(db, scope, 'task', id));
}

export async function createTask(
  db: Db,
  scope: Scope,
  farmId: string,
  input: CreateTaskInput,
  now: number = Date.now(),
): Promise<Task> {
  return inTransaction(db, async (trx) => {
    const farm = await requireFarm(trx, scope, farmId);
    const status = input.status ?? TASK_STATUS.open;
    const subject = await resolveSubject(trx, farm.id, input.subject_type ?? null, input.subject_id ?? null);
    if (input.alert_id) await requireReference(trx, farm.id, 'alert', input.alert_id, 'alert_id');
    const due = parseFarmDayInput('due_at', input.due_at, farm.timezone);
    const row: TaskRow = {
      id: newId('task', now),
      farm_id: farm.id,
      title: input.title,
      notes: input.notes ?? null,
      due_at: due.at,
      due_date: due.date,
      assignee: input.assignee ?? null,
      status,
      ...subject,
      alert_id: input.alert_id ?? null,
      paddock_id: input.paddock_id ?? null,
      done_at: doneAtFor(status, null, now),
      created_at: now,
    };
    await checkDestination(trx, farm.id, row);
    await insertRecord(trx, 'task', row);
    if (status === DONE) await moveOnDone(trx, row, now, now);
    return toTask(row);
  });
}

export async function updateTask(
  db: Db,
  scope: Scope,
  id: string,
  patch: UpdateTaskInput,
  now: number = Date.now(),
): Promise<Task> {
  return inTransaction(db, async (trx) => {
    // Locked before it is read: the whole row is written back (and done_at depends on the old status).
    await lockRows(trx, 'tasks', id);
    const row = await loadScoped(trx, scope, 'task', id);
    const next: TaskRow = { ...row };
    if (patch.title !== undefined) next.title = patch.title;
    if (patch.notes !== undefined) next.notes = patch.notes;
    if (patch.due_at !== undefined) {
      // A date-only value is a day of the farm: its zone says when that day starts.
      const { timezone } = await requireFarm(trx, scope, row.farm_id);
      const due = parseFarmDayInput('due_at', patch.due_at, timezone);
      next.due_at = due.at;
      next.due_date = due.date;
    }
    if (patch.assignee !== undefined) next.assignee = patch.assignee;
    if (patch.status !== undefined) {
      next.status = patch.status;
      next.done_at = doneAtFor(patch.status, row, now);
    }
    Object.assign(next, await patchSubject(trx, row.farm_id, row, patch));
    if (patch.alert_id !== undefined) {
      if (patch.alert_id) await requireReference(trx, row.farm_id, 'alert', patch.alert_id, 'alert_id');
      next.alert_id = patch.alert_id;
    }
    if (patch.paddock_id !== undefined) next.paddock_id = patch.paddock_id;
    if (
      patch.paddock_id !== undefined ||
      patch.subject_id !== undefined ||
      patch.subject_type !== undefined
    ) {
      await checkDestination(trx, row.farm_id, next);
    }
    await saveRecord(trx, 'task', next);
    if (row.status !== DONE && next.status === DONE) await moveOnDone(trx, next, now, now);
    return toTask(next);
  });
}

/**
 * Marks the task done and records when: now, or the earlier `done_at` a caller gives (work marked done
 * without signal and sent later; a time after now counts as now, since nothing is done in the future). A
 * task with a destination paddock moves its subject there, at that time. A task already done is returned
 * unchanged (and moves nothing again).
 */
export async function completeTask(
  db: Db,
  scope: Scope,
  id: string,
  input: CompleteTaskInput = {},
  now: number = Date.now(),
): Promise<Task> {
  const given = input.done_at === undefined ? null : parseDateInput('done_at', input.done_at);
  const doneAt = given === null ? now : Math.min(given, now);
  return inTransaction(db, async (trx) => {
    // Locked, so two calls at once mark it (and move its subject) once.
    await lockRows(trx, 'tasks', id);
    const row = await loadScoped(trx, scope, 'task', id);
    if (row.status === DONE) return toTask(row);
    if (await markTaskDone(trx, row.id, doneAt)) await moveOnDone(trx, row, doneAt, now);
    return toTask(await loadScoped(trx, scope, 'task', id));
  });
}

export async function deleteTask(db: Db, scope: Scope, id: string): Promise<{ id: string; deleted: true }> {
  const row = await loadScoped(db, scope, 'task', id);
  await deleteRecord(db, 'task', row.id);
  return { id: row.id, deleted: true };
}
