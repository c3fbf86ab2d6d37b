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
