/** The schemas of the consent's API and of connected agents (modules/oauth, docs/oauth.md). */
import { Type } from 'typebox';
import { DateTime, Nullable } from '../../http/schemas.ts';

export const AuthorizationQuery = Type.Object(
  {
    response_type: Type.Optional(Type.String()),
    client_id: Type.Optional(Type.String()),
    redirect_uri: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
    code_challenge: Type.Optional(Type.String()),
    code_challenge_method: Type.Optional(Type.String()),
    resource: Type.Optional(Type.String()),
    prompt: Type.Optional(Type.String()),
  },
  { description: 'The authorization request, as the client sent it to /oauth/authorize.' },
);

const Mode = Type.Union([Type.Literal('live'), Type.Literal('test')]);
const Level = Type.Union([Type.Literal('read'), Type.Literal('record'), Type.Literal('full')], {
  description:
    'read: read only; record: read, and record tasks, events, alerts and animals; full: also house and device commands.',
});

export const ConsentRequest = Type.Object(
  {
    client: Type.Object({
      client_id: Type.String(),
      name: Type.String({ description: 'The name the client gave itself (not verified).' }),
      redirect_host: Type.String({ description: 'Where the answer goes: the redirect URI’s host.' }),
      registration: Type.Union([Type.Literal('metadata_document'), Type.Literal('dynamic')]),
      published_by: Nullable(
        Type.String({ description: 'The host of its client metadata document (null: registered by DCR).' }),
      ),
    }),
    farms: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), mode: Mode })),
    mode: Mode,
    levels: Type.Array(Type.Object({ level: Level, title: Type.String() }), {
      description: 'The levels this person may grant (never more than their own role).',
    }),
  },
  { additionalProperties: false },
);

export const ConsentBody = Type.Object(
  {
    request: AuthorizationQuery,
    decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
    mode: Type.Optional(Mode),
    farms: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 100 }))),
    level: Type.Optional(Level),
  },
  { additionalProperties: false },
);

const Agent = Type.Object({
  id: Type.String(),
  client_name: Type.String(),
  redirect_host: Type.String(),
  mode: Mode,
  farms: Nullable(Type.Array(Type.String())),
  level: Level,
  connected_by: Type.String({ description: 'The email of the person who allowed it.' }),
  created_at: DateTime(),
  last_used_at: Nullable(DateTime()),
});

export const AgentList = Type.Object({ data: Type.Array(Agent) });
export const AgentRevoked = Type.Object({ id: Type.String(), revoked_at: DateTime() });
export const ConsentAnswer = Type.Object({ redirect_to: Type.String() });
