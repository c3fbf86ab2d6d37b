/**
 * The hooks a broker asks who may connect, publish and subscribe (FARMSTEAD_MQTT_BROKER_AUTH=http; not
 * registered otherwise). Every path carries the shared secret FARMSTEAD_MQTT_HOOK_SECRET as a segment:
 * RabbitMQ cannot send a header, and one way for the three brokers keeps the configuration simple. The
 * segment, and a password a GET carries in its query string, are declared `secrets` and never logged
 * (http/logging.ts); bodies are never logged. Not part of the public API: hidden from the OpenAPI document.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { sameSecret } from '../../lib/secrets.ts';
import { emqxAuthenticate, emqxAuthorize } from './emqx.ts';
import { rabbitResource, rabbitTopic, rabbitUser, rabbitVhost } from './rabbitmq.ts';
import {
  EmqxAnswer,
  EmqxAuthnBody,
  EmqxAuthzBody,
  HookParams,
  RabbitFields,
  VerneHookBody,
} from './schemas.ts';
import type { HookDeps, ServiceLogin } from './service.ts';
import { verneAnswer, verneHookOf } from './vernemq.ts';

export interface BrokerHookOptions {
  db: HookDeps['db'];
  secret: string;
  service: ServiceLogin | null;
  /** Told of every device let in (the admin API's kicks, kick.ts); absent without FARMSTEAD_MQTT_BROKER_ADMIN. */
  letIn?: HookDeps['letIn'];
}

/** Every hook's path starts so; `:secret` is FARMSTEAD_MQTT_HOOK_SECRET. */
export const HOOKS_ROOT = '/broker-hooks/:secret';

const FORM = 'application/x-www-form-urlencoded';

export const brokerHookRoutes: FastifyPluginAsyncTypebox<BrokerHookOptions> = async (
  app,
  { db, secret, service, letIn },
) => {
  const deps: HookDeps = { db, service, letIn };
  const config = { auth: 'none' as const, secrets: ['secret', 'password'] };

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const sent = (request.params as { secret?: unknown }).secret;
    if (typeof sent !== 'string' || !sameSecret(sent, secret)) {
      throw new AppError('unauthorized', 'The hook path does not carry FARMSTEAD_MQTT_HOOK_SECRET.');
    }
  });

  // RabbitMQ posts forms; a field sent twice is refused rather than guessed.
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (_request, body, done) => {
    const fields: Record<string, string> = {};
    for (const [name, value] of new URLSearchParams(body as string)) {
      if (name in fields) {
        done(new AppError('invalid_request', `${name} is sent more than once.`, { param: name }), undefined);
        return;
      }
      fields[name] = value;
    }
    done(null, fields);
  });

  app.post(
    `${HOOKS_ROOT}/emqx/authn`,
    {
      config,
      schema: { hide: true, params: HookParams, body: EmqxAuthnBody, response: { 200: EmqxAnswer } },
    },
    async (request) => emqxAuthenticate(deps, request.body),
  );
  app.post(
    `${HOOKS_ROOT}/emqx/authz`,
    {
      config,
      schema: { hide: true, params: HookParams, body: EmqxAuthzBody, response: { 200: EmqxAnswer } },
    },
    async (request) => emqxAuthorize(deps, request.body),
  );

  app.post(
    `${HOOKS_ROOT}/vernemq`,
    { config, schema: { hide: true, params: HookParams, body: VerneHookBody } },
    async (request) => verneAnswer(deps, verneHookOf(request.headers['vernemq-hook']), request.body),
  );

  const rabbit = {
    user: (fields: RabbitFields) => rabbitUser(deps, fields),
    vhost: async () => rabbitVhost(),
    resource: async (fields: RabbitFields) => rabbitResource(deps, fields),
    topic: async (fields: RabbitFields) => rabbitTopic(deps, fields),
  };
  for (const [path, answer] of Object.entries(rabbit)) {
    const url = `${HOOKS_ROOT}/rabbitmq/${path}`;
    app.get(
      url,
      { config, schema: { hide: true, params: HookParams, querystring: RabbitFields } },
      async (request, reply) => reply.type('text/plain').send(await answer(request.query)),
    );
    app.post(
      url,
      { config, schema: { hide: true, params: HookParams, body: RabbitFields } },
      async (request, reply) => reply.type('text/plain').send(await answer(request.body)),
    );
  }
};
