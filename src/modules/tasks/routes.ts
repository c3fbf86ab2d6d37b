import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, IdParams } from '../../http/schemas.ts';
import { recordRoutes } from '../records/routes.ts';
import { CompleteTaskBody, CreateTaskBody, TaskListQuery, UpdateTaskBody } from './schemas.ts';
import { completeTask, createTask, deleteTask, getTask, listTasks, updateTask } from './service.ts';

export const taskRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Tasks'];
  const TaskRef = Type.Ref('Task');

  recordRoutes(app, db, {
    path: 'tasks',
    one: 'Task',
    many: 'Tasks',
    tags,
    noun: 'task',
    nouns: 'tasks',
    summaries: {
      list: "List a farm's tasks, newest first, with filters",
      create: 'Add a task',
      get: 'Get a task',
      update: 'Update a task',
      delete: 'Delete a task',
    },
    schemas: { query: TaskListQuery, create: CreateTaskBody, update: UpdateTaskBody },
    service: {
      list: (db, scope, farmId, { limit, before, ...filters }) =>
        listTasks(db, scope, farmId, filters, parsePage({ limit, before })),
      create: createTask,
      get: getTask,
      update: updateTask,
      delete: deleteTask,
    },
  });

  app.post(
    '/v1/tasks/:id/done',
    {
      schema: {
        operationId: 'completeTask',
        tags,
        summary:
          'Mark a task done (sets done_at: now, or the optional body’s earlier done_at; a task already done is returned unchanged)',
        params: IdParams,
        body: Type.Optional(CompleteTaskBody),
        response: {
          200: described(TaskRef, 'The task, done.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => completeTask(db, apiCaller(request), request.params.id, request.body),
  );
};
