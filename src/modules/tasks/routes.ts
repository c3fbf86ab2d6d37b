import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import {
  BODY_ERRORS,
  DeletedSchema,
  described,
  errorResponses,
  FarmParams,
  IdParams,
  ListOf,
} from '../../http/schemas.ts';
import { CreateTaskBody, TaskListQuery, UpdateTaskBody } from './schemas.ts';
import { completeTask, createTask, deleteTask, getTask, listTasks, updateTask } from './service.ts';

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export const taskRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Tasks'];
  const TaskRef = Type.Ref('Task');

  app.get(
    '/v1/farms/:farm/tasks',
    {
      config: { readCache: true },
      schema: {
        operationId: 'listTasks',
        tags,
        summary: "List a farm's tasks, newest first, with filters",
        params: FarmParams,
        querystring: TaskListQuery,
        response: {
          200: described(ListOf(TaskRef), 'A page of tasks, newest first.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => {
      const { limit, before, ...filters } = request.query;
      return listTasks(db, apiCaller(request), request.params.farm, filters, parsePage({ limit, before }));
    },
  );

  app.post(
    '/v1/farms/:farm/tasks',
    {
      schema: {
        operationId: 'createTask',
        tags,
        summary: 'Add a task',
        params: FarmParams,
        body: CreateTaskBody,
        response: {
          201: described(TaskRef, 'The new task.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createTask(db, apiCaller(request), request.params.farm, request.body)),
  );

  app.get(
    '/v1/tasks/:id',
    {
      config: { readCache: true },
      schema: {
        operationId: 'getTask',
        tags,
        summary: 'Get a task',
        params: IdParams,
        response: {
          200: described(TaskRef, 'The task.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getTask(db, apiCaller(request), request.params.id),
  );

  app.patch(
    '/v1/tasks/:id',
    {
      schema: {
        operationId: 'updateTask',
        tags,
        summary: 'Update a task',
        params: IdParams,
        body: UpdateTaskBody,
        response: {
          200: described(TaskRef, 'The task as updated.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateTask(db, apiCaller(request), request.params.id, request.body),
  );

  app.delete(
    '/v1/tasks/:id',
    {
      schema: {
        operationId: 'deleteTask',
        tags,
        summary: 'Delete a task',
        params: IdParams,
        response: {
          200: described(DeletedSchema, 'The task is deleted.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => deleteTask(db, apiCaller(request), request.params.id),
  );

  app.post(
    '/v1/tasks/:id/done',
    {
      schema: {
        operationId: 'completeTask',
        tags,
        summary: 'Mark a task done (sets done_at; a task already done is returned unchanged)',
        params: IdParams,
        response: {
          200: described(TaskRef, 'The task, done.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => completeTask(db, apiCaller(request), request.params.id),
  );
};
