/**
 * The hooks' request and answer shapes, as each broker's documentation gives them. Brokers send more than
 * Farmstead reads (VerneMQ's peer_addr and properties, RabbitMQ's ip and tags), so extra members are
 * allowed; the members read are checked.
 */
import { type Static, Type } from 'typebox';

export const HookParams = Type.Object({ secret: Type.String({ maxLength: 256 }) });
export type HookParams = Static<typeof HookParams>;

const Text = Type.String({ maxLength: 65_535 });

/** EMQX: the body the operator configured (docs/deployment.md gives it); username and password needed. */
export const EmqxAuthnBody = Type.Object({
  username: Text,
  password: Text,
  clientid: Type.Optional(Text),
});
export type EmqxAuthnBody = Static<typeof EmqxAuthnBody>;

export const EmqxAuthzBody = Type.Object({
  username: Text,
  clientid: Type.Optional(Text),
  action: Type.Union([Type.Literal('publish'), Type.Literal('subscribe'), Type.Literal('all')]),
  topic: Text,
});
export type EmqxAuthzBody = Static<typeof EmqxAuthzBody>;

export const EmqxAnswer = Type.Object({
  result: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  is_superuser: Type.Optional(Type.Boolean()),
});

/** VerneMQ: one body shape for the hooks served (register, publish, subscribe; 3.1.1 and 5). */
export const VerneHookBody = Type.Object({
  username: Type.Optional(Type.Union([Text, Type.Null()])),
  password: Type.Optional(Type.Union([Text, Type.Null()])),
  client_id: Type.Optional(Text),
  mountpoint: Type.Optional(Text),
  topic: Type.Optional(Text),
  topics: Type.Optional(
    Type.Array(Type.Object({ topic: Text, qos: Type.Integer({ minimum: 0, maximum: 255 }) }), {
      maxItems: 1_000,
    }),
  ),
});
export type VerneHookBody = Static<typeof VerneHookBody>;

interface TopicQos {
  topic: string;
  qos: number;
}
export type VerneAnswer =
  | { result: 'ok' }
  | { result: { error: string } }
  | { result: 'ok'; topics: TopicQos[] }
  | { result: 'ok'; modifiers: { topics: TopicQos[] } };

/** RabbitMQ: the query string (GET) or form (POST) of any of the four paths. */
export const RabbitFields = Type.Object({
  username: Text,
  password: Type.Optional(Text),
  vhost: Type.Optional(Text),
  ip: Type.Optional(Text),
  resource: Type.Optional(Text),
  name: Type.Optional(Text),
  permission: Type.Optional(Text),
  routing_key: Type.Optional(Text),
});
export type RabbitFields = Static<typeof RabbitFields>;
