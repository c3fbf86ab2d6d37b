import { type Static, Type } from 'typebox';
import { DateInput, DateTime, Nullable, OPTIONAL_BODY, PageQuery } from '../../http/schemas.ts';

const STATUS_DESCRIPTION =
  'open (default) or done; other values (e.g. in_progress) are kept as given. Becoming done sets done_at; leaving done clears it.';

export const TaskSchema = Type.Object(
  {
    id: Type.String(),
    farm_id: Type.String(),
    title: Type.String(),
    notes: Nullable(Type.String()),
    due_at: Nullable(
      DateTime(
        'When the task is due. For a task due on a day (due_at sent as a date, YYYY-MM-DD): the start of that day in the farm’s time zone.',
      ),
    ),
    due_date: Nullable(
      Type.String({
        format: 'date',
        description:
          'The day the task is due on, as sent (YYYY-MM-DD), when due_at was a date without a time: due all that day in the farm’s time zone, overdue once it has ended. null when due_at is a time.',
      }),
    ),
    assignee: Nullable(Type.String()),
    status: Type.String({ description: STATUS_DESCRIPTION }),
    subject_type: Nullable(Type.String({ description: 'The kind of record subject_id names.' })),
    subject_id: Nullable(Type.String()),
    alert_id: Nullable(Type.String()),
    paddock_id: Nullable(
      Type.String({
        description:
          'Where the task moves its subject (an animal or group): marking the task done records the move to this paddock.',
      }),
    ),
    done_at: Nullable(DateTime('When the task was marked done.')),
    created_at: DateTime(),
  },
  { $id: 'Task', title: 'Task' },
);

const fields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  notes: Nullable(Type.String({ maxLength: 10_000 })),
  due_at: Nullable(
    DateInput(
      'When the task is due. A date without a time (2026-11-28) means that whole day in the farm’s time zone (see due_date), not midnight UTC.',
    ),
  ),
  assignee: Nullable(
    Type.String({ minLength: 1, maxLength: 200, description: 'Who should do it (free text).' }),
  ),
  status: Type.String({ minLength: 1, maxLength: 50, description: STATUS_DESCRIPTION }),
  subject_type: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 50,
      description:
        'animal, group, paddock, device, task or alert; inferred from the subject_id prefix when omitted.',
    }),
  ),
  subject_id: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The record the task is about; must be on this farm.',
    }),
  ),
  alert_id: Nullable(Type.String({ minLength: 1, maxLength: 100, description: 'An alert on this farm.' })),
  paddock_id: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'A planned move: the paddock the subject (an animal or group) moves to when the task is done.',
    }),
  ),
};

export const CreateTaskBody = Type.Object(
  {
    title: fields.title,
    notes: Type.Optional(fields.notes),
    due_at: Type.Optional(fields.due_at),
    assignee: Type.Optional(fields.assignee),
    status: Type.Optional(fields.status),
    subject_type: Type.Optional(fields.subject_type),
    subject_id: Type.Optional(fields.subject_id),
    alert_id: Type.Optional(fields.alert_id),
    paddock_id: Type.Optional(fields.paddock_id),
  },
  { additionalProperties: false },
);

/**
 * POST /v1/tasks/{id}/done, whose body is optional: when the work was done, for a change made without signal
 * and sent later (the field app sends the moment it was marked).
 */
export const CompleteTaskBody = Type.Object(
  {
    done_at: Type.Optional(
      DateInput(
        'When the task was done, if before now (marked offline and sent later); a later time counts as now, and a time before the task was created as its creation. Default: now. A destination paddock’s move is recorded at this time too.',
      ),
    ),
  },
  { additionalProperties: false, ...OPTIONAL_BODY },
);
export type CompleteTaskInput = Static<typeof CompleteTaskBody>;

/** Any of the create body's members; PATCH changes only those given. */
export const UpdateTaskBody = Type.Partial(CreateTaskBody, { additionalProperties: false });

export const TaskListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Type.String({ minLength: 1, description: 'Exact status, e.g. open.' })),
    assignee: Type.Optional(Type.String({ minLength: 1, description: 'Exact assignee.' })),
    subject_id: Type.Optional(Type.String({ minLength: 1, description: 'Tasks about this record.' })),
    paddock_id: Type.Optional(
      Type.String({ minLength: 1, description: 'Tasks that move their subject to this paddock.' }),
    ),
  },
  { additionalProperties: false },
);

export type Task = Static<typeof TaskSchema>;
export type CreateTaskInput = Static<typeof CreateTaskBody>;
export type UpdateTaskInput = Static<typeof UpdateTaskBody>;
export interface TaskFilters {
  status?: string | undefined;
  assignee?: string | undefined;
  subject_id?: string | undefined;
  paddock_id?: string | undefined;
}
