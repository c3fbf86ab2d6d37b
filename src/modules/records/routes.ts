/**
 * The five routes every farm record kind has (list and create under its farm, get, update and delete by
 * id), built once: the same parameters, responses, errors, read cache and status codes for every kind, a
 * one-line handler each calling the kind's service. A kind's own routes (a task's done, a device's key)
 * stay in its module's routes.ts. Kinds whose list and create are their own (webhooks, rules, alerts) take
 * only the get and delete by id from here (`recordGetRoute`, `recordDeleteRoute`).
 */
import type { FastifyPluginAsyncTypebox, TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest, RouteGenericInterface } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Page } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import type { ErrorCode } from '../../domain/errors.ts';
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
import type { Scope } from '../farms/access.ts';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/**
 * What a route validated against schema S hands its handler, written as the type provider writes it, so
 * the service functions below take exactly what the handlers receive: the kind's `Static` types once the
 * module passes its schemas.
 */
type Validated<S extends TSchema, Part extends 'body' | 'query'> = FastifyRequest<
  RouteGenericInterface,
  App['server'],
  FastifyRequest['raw'],
  { body: S; querystring: S },
  TypeBoxTypeProvider
>[Part];

/** The kind's service functions, as the routes call them (services take db first, then the caller). */
export interface RecordService<Query extends TSchema, Create extends TSchema, Update extends TSchema> {
  /** The farm's page of records: the module splits the query into its filters and the page. */
  list(db: Db, scope: Scope, farmId: string, query: Validated<Query, 'query'>): Promise<Page<unknown>>;
  create(db: Db, scope: Scope, farmId: string, input: Validated<Create, 'body'>): Promise<unknown>;
  get(db: Db, scope: Scope, id: string): Promise<unknown>;
  update(db: Db, scope: Scope, id: string, input: Validated<Update, 'body'>): Promise<unknown>;
  delete(db: Db, scope: Scope, id: string): Promise<{ id: string; deleted: boolean }>;
}

/** A write route's own meanings for its error codes (e.g. an animal's 409 on a taken eid). */
type ErrorMeanings = Partial<Record<ErrorCode, string>>;

export interface RecordKind<Query extends TSchema, Create extends TSchema, Update extends TSchema> {
  /** The path segment: `/v1/farms/{farm}/<path>` and `/v1/<path>/{id}`. */
  path: string;
  /** The record's schema name (`Type.Ref`) and the operationIds' nouns: `get<one>`, `list<many>`. */
  one: string;
  many: string;
  tags: string[];
  /** How the response descriptions name one record and several: "The <noun>.", "A page of <nouns>, …". */
  noun: string;
  nouns: string;
  summaries: { list: string; create: string; get: string; update: string; delete: string };
  /** Response descriptions where the defaults from `noun` do not say enough. */
  described?: { list?: string; create?: string };
  /** The 404 and 409 meanings of create and update, where they differ from the shared ones. */
  errors?: { create?: ErrorMeanings; update?: ErrorMeanings };
  schemas: { query: Query; create: Create; update: Update };
  service: RecordService<Query, Create, Update>;
  /**
   * How reads use the read cache (http/read-cache.ts; default `true`): a kind whose answer moves with the
   * clock without a commit (a paddock's rest_days) bounds how old a kept answer may be.
   */
  readCache?: true | { maxAgeMs: number };
  /** Create answers a secret shown once (a device key): its answer is never kept for a retry (http/idempotency.ts). */
  shownOnce?: true;
}

// Over 80 lines by design: one declaration per route (its schema, then a one-line handler), each read alone.
export function recordRoutes<Query extends TSchema, Create extends TSchema, Update extends TSchema>(
  app: App,
  db: Db,
  kind: RecordKind<Query, Create, Update>,
): void {
  const { tags, summaries, schemas, service } = kind;
  const Ref = Type.Ref(kind.one);

  app.get(
    `/v1/farms/:farm/${kind.path}`,
    {
      config: { readCache: kind.readCache ?? true },
      schema: {
        operationId: `list${kind.many}`,
        tags,
        summary: summaries.list,
        params: FarmParams,
        querystring: schemas.query,
        response: {
          200: described(ListOf(Ref), kind.described?.list ?? `A page of ${kind.nouns}, newest first.`),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => service.list(db, apiCaller(request), request.params.farm, request.query),
  );

  app.post(
    `/v1/farms/:farm/${kind.path}`,
    {
      ...(kind.shownOnce ? { config: { shownOnce: true } } : {}),
      schema: {
        operationId: `create${kind.one}`,
        tags,
        summary: summaries.create,
        params: FarmParams,
        body: schemas.create,
        response: {
          201: described(Ref, kind.described?.create ?? `The new ${kind.noun}.`),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            kind.errors?.create ?? 'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await service.create(db, apiCaller(request), request.params.farm, request.body)),
  );

  recordGetRoute(app, db, kind);

  app.patch(
    `/v1/${kind.path}/:id`,
    {
      schema: {
        operationId: `update${kind.one}`,
        tags,
        summary: summaries.update,
        params: IdParams,
        body: schemas.update,
        response: {
          200: described(Ref, `The ${kind.noun} as updated.`),
          ...errorResponses(
            'invalid_request',
            'unauthorized',
            kind.errors?.update ?? 'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request) => service.update(db, apiCaller(request), request.params.id, request.body),
  );

  recordDeleteRoute(app, db, kind);
}

/**
 * What the get and delete by id need of a kind. The kinds whose list and create are their own (webhooks,
 * rules, alerts) build only these two, or get alone; a kind built by `recordRoutes` gives them too.
 */
export interface RecordByIdKind {
  /** The path segment: `/v1/<path>/{id}`. */
  path: string;
  /** The record's schema name (`Type.Ref`) and the operationIds' noun: `get<one>`, `delete<one>`. */
  one: string;
  tags: string[];
  /** How the response descriptions name the record: "The <noun>.", "The <noun> is deleted.". */
  noun: string;
  summaries: { get: string; delete?: string };
  /** The operations' descriptions, where the summary does not say enough. */
  descriptions?: { get?: string; delete?: string };
  /** As `RecordKind.readCache`; `false`: the get is always read afresh. */
  readCache?: true | { maxAgeMs: number } | false;
  service: Pick<RecordService<TSchema, TSchema, TSchema>, 'get'> &
    Partial<Pick<RecordService<TSchema, TSchema, TSchema>, 'delete'>>;
}

/** `GET /v1/<path>/{id}`: the record, or 404 (also for one in another account). */
export function recordGetRoute(app: App, db: Db, kind: RecordByIdKind): void {
  const readCache = kind.readCache ?? true;
  app.get(
    `/v1/${kind.path}/:id`,
    {
      ...(readCache ? { config: { readCache } } : {}),
      schema: {
        operationId: `get${kind.one}`,
        tags: kind.tags,
        summary: kind.summaries.get,
        ...(kind.descriptions?.get ? { description: kind.descriptions.get } : {}),
        params: IdParams,
        response: {
          200: described(Type.Ref(kind.one), `The ${kind.noun}.`),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => kind.service.get(db, apiCaller(request), request.params.id),
  );
}

/** `DELETE /v1/<path>/{id}`: `{ id, deleted: true }`, or 404 (also for one in another account). */
export function recordDeleteRoute(
  app: App,
  db: Db,
  kind: RecordByIdKind & {
    summaries: { delete: string };
    service: Pick<RecordService<TSchema, TSchema, TSchema>, 'delete'>;
  },
): void {
  app.delete(
    `/v1/${kind.path}/:id`,
    {
      schema: {
        operationId: `delete${kind.one}`,
        tags: kind.tags,
        summary: kind.summaries.delete,
        ...(kind.descriptions?.delete ? { description: kind.descriptions.delete } : {}),
        params: IdParams,
        response: {
          200: described(DeletedSchema, `The ${kind.noun} is deleted.`),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => kind.service.delete(db, apiCaller(request), request.params.id),
  );
}
