/**
 * Task statuses the service gives a meaning to. The spec leaves the values open, so any other status
 * (in_progress…) is stored as given.
 */
export const TASK_STATUS = {
  /** A new task's status when none is given; list_tasks shows these by default. */
  open: 'open',
  /** Set by POST /v1/tasks/{id}/done; becoming done sets done_at. */
  done: 'done',
} as const;

/** Statuses that mean nothing is left to do: the brief leaves these tasks out. */
export const CLOSED_TASK_STATUSES: readonly string[] = Object.freeze([
  TASK_STATUS.done,
  'cancelled',
  'canceled',
]);

/**
 * The brief's and the Tasks page's rule (docs/brief.md): due today all the farm's day it is due on, even past
 * its time; overdue from the next day. `dayOf`: an instant's date (YYYY-MM-DD) in the farm's time zone.
 */
export function taskDue(
  task: { due_at: number | null; status: string },
  now: number,
  dayOf: (at: number) => string,
): 'overdue' | 'today' | null {
  if (task.due_at === null || CLOSED_TASK_STATUSES.includes(task.status)) return null;
  const due = dayOf(task.due_at);
  const today = dayOf(now);
  return due < today ? 'overdue' : due === today ? 'today' : null;
}
