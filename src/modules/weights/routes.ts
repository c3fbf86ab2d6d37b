import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../../db/pagination.ts';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams, ListOf } from '../../http/schemas.ts';
import {
  GroupWeightsQuery,
  ImportSessionBody,
  RecordWeightBody,
  SessionListQuery,
  WeightsQuery,
} from './schemas.ts';
import { getAnimalWeights, getGroupWeights, recordWeight } from './service.ts';
import { SESSION_BODY_LIMIT_BYTES } from './session-file.ts';
import { getWeighSession, importWeighSession, listWeighSessions, previewWeighSession } from './sessions.ts';

export const weightRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Herd book'];
  const AnimalWeights = Type.Ref('AnimalWeights');
  const WeighSession = Type.Ref('WeighSession');

  app.get(
    '/v1/animals/:id/weights',
    {
      schema: {
        operationId: 'getAnimalWeights',
        tags,
        summary:
          "An animal's weights (every source), each with its gain since the one before; the ADG over the period and the weight projected to today",
        params: IdParams,
        querystring: WeightsQuery,
        response: {
          200: described(AnimalWeights, 'The weights, newest first, with the ADG and projection.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getAnimalWeights(db, apiCaller(request), request.params.id, request.query),
  );

  app.post(
    '/v1/animals/:id/weights',
    {
      schema: {
        operationId: 'recordAnimalWeight',
        tags,
        summary:
          'Record one weight (the chute page): checked against the species, logged as a `weight` event (source chute)',
        params: IdParams,
        body: RecordWeightBody,
        response: {
          201: described(AnimalWeights, "The animal's weights with the new one."),
          ...errorResponses(
            { invalid_request: 'A bad member, or a weight impossible for the species; `param` names it.' },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await recordWeight(db, apiCaller(request), request.params.id, request.body)),
  );

  app.get(
    '/v1/groups/:id/weights',
    {
      schema: {
        operationId: 'getGroupWeights',
        tags,
        summary:
          "A group's weights: head weighed, mean, min, max, spread and mean ADG over each active animal's latest weight, and the animals gaining least",
        params: IdParams,
        querystring: GroupWeightsQuery,
        response: {
          200: described(Type.Ref('GroupWeights'), "The group's figures."),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getGroupWeights(db, apiCaller(request), request.params.id, request.query),
  );

  app.post(
    '/v1/farms/:farm/weigh-sessions/import',
    {
      bodyLimit: SESSION_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'importWeighSession',
        tags,
        summary:
          'Import a weigh session file (Datamars/Tru-Test, Gallagher or any CSV with a mapping): dry_run previews the matches; the import stores each weight once (the same file again imports nothing; emits weigh_session.imported)',
        params: FarmParams,
        body: ImportSessionBody,
        response: {
          200: described(
            Type.Union([Type.Ref('WeighSessionPreview'), Type.Ref('ImportedWeighSession')]),
            'The dry run’s preview; or, for a file imported before, that session (already_imported true).',
          ),
          201: described(Type.Ref('ImportedWeighSession'), 'The session imported, with its summary.'),
          ...errorResponses(
            {
              invalid_request:
                'A file that cannot be read (no header naming a weight, a quote never closed), a mapping naming no column of the file, a generic CSV without its confirmed mapping; `param` names it.',
            },
            'unauthorized',
            'not_found',
            ...BODY_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      const caller = apiCaller(request);
      if (request.body.dry_run === true) {
        return previewWeighSession(db, caller, request.params.farm, request.body);
      }
      const session = await importWeighSession(db, caller, request.params.farm, request.body);
      return reply.status(session.already_imported ? 200 : 201).send(session);
    },
  );

  app.get(
    '/v1/farms/:farm/weigh-sessions',
    {
      schema: {
        operationId: 'listWeighSessions',
        tags,
        summary: "A farm's weigh sessions with their summaries, newest weighed first",
        params: FarmParams,
        querystring: SessionListQuery,
        response: {
          200: described(ListOf(WeighSession), 'A page of sessions.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found'),
        },
      },
    },
    async (request) =>
      listWeighSessions(db, apiCaller(request), request.params.farm, parsePage(request.query)),
  );

  app.get(
    '/v1/weigh-sessions/:id',
    {
      schema: {
        operationId: 'getWeighSession',
        tags,
        summary: 'A weigh session: head count, mean, min, max, ADG since the previous session, histogram',
        params: IdParams,
        response: {
          200: described(WeighSession, 'The session.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => getWeighSession(db, apiCaller(request), request.params.id),
  );
};
