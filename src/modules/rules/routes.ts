import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../../db/schema.ts';
import { apiCaller } from '../../http/auth.ts';
import { BODY_ERRORS, described, errorResponses, FarmParams, IdParams } from '../../http/schemas.ts';
import { type RecordByIdKind, recordDeleteRoute, recordGetRoute } from '../records/routes.ts';
import { CreateRuleBody, UpdateRuleBody } from './schemas.ts';
import { createRule, deleteRule, getRule, listRules, updateRuleById } from './service.ts';

export const ruleRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  const tags = ['Alerts'];
  const RuleRef = Type.Ref('Rule');
  const byId = {
    path: 'rules',
    one: 'Rule',
    tags,
    noun: 'rule',
    summaries: { get: 'Get a rule of a farm’s own', delete: 'Delete a rule of a farm’s own' },
    descriptions: {
      get: 'One custom rule by id (default rules have no id; list them on the farm).',
      delete: 'Its active alerts resolve, with a reason saying the rule was deleted.',
    },
    readCache: false,
    service: { get: getRule, delete: deleteRule },
  } as const satisfies RecordByIdKind;

  app.get(
    '/v1/farms/:farm/rules',
    {
      schema: {
        operationId: 'listRules',
        tags,
        summary: "List a farm's effective alert rules",
        description:
          'The default rules with the farm’s settings.rules overrides applied, then the farm’s own rules in the order they were added. Not paged: a farm has at most a hundred rules of its own.',
        params: FarmParams,
        response: {
          200: described(Type.Object({ data: Type.Array(RuleRef) }), 'Every rule that applies to the farm.'),
          ...errorResponses('unauthorized', 'not_found'),
        },
      },
    },
    async (request) => listRules(db, apiCaller(request), request.params.farm),
  );

  app.post(
    '/v1/farms/:farm/rules',
    {
      schema: {
        operationId: 'createRule',
        tags,
        summary: 'Add a rule of the farm’s own',
        description:
          'A threshold rule on any metric, optionally scoped to a device type, a device or a group and optionally sustained (for_s). It behaves like a default rule: hysteresis between watch and clear, escalation to urgent, one active alert per rule and subject.',
        params: FarmParams,
        body: CreateRuleBody,
        response: {
          201: described(RuleRef, 'The new rule.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', 'conflict', ...BODY_ERRORS),
        },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createRule(db, apiCaller(request), request.params.farm, request.body)),
  );

  recordGetRoute(app, db, byId);

  app.patch(
    '/v1/rules/:id',
    {
      schema: {
        operationId: 'updateRule',
        tags,
        summary: 'Change a rule of a farm’s own',
        description:
          'Any subset of members; the result is checked whole. Disabling the rule, or changing its name, metric, direction or scope, resolves its active alerts with a reason saying so.',
        params: IdParams,
        body: UpdateRuleBody,
        response: {
          200: described(RuleRef, 'The rule as changed.'),
          ...errorResponses('invalid_request', 'unauthorized', 'not_found', 'conflict', ...BODY_ERRORS),
        },
      },
    },
    async (request) => updateRuleById(db, apiCaller(request), request.params.id, request.body),
  );

  recordDeleteRoute(app, db, byId);
};
