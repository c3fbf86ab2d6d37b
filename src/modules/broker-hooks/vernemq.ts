/**
 * VerneMQ's webhooks (vmq_webhooks; vernemq/vmq-docs plugindevelopment/webhookplugins.md): one endpoint
 * for every hook, which VerneMQ names in the `vernemq-hook` header. auth_on_register, auth_on_publish and
 * auth_on_subscribe, and their MQTT 5 forms (`_m5`), answer `{"result": "ok"}` or
 * `{"result": {"error": "not_allowed"}}`; a subscription where some filters are refused answers "ok" with
 * the topics list, each refused filter's qos replaced by 128 (MQTT 3.1.1's failure) or 135 (MQTT 5's "not
 * authorized"), so the device gets a per-filter SUBACK as on the embedded broker. Never `next`: Farmstead
 * is the authority on devices. The payload (base64) and mountpoint are not looked at.
 */
import { AppError } from '../../domain/errors.ts';
import type { VerneAnswer, VerneHookBody } from './schemas.ts';
import { type HookDeps, hookLogin, hookMayPublish, hookMaySubscribe } from './service.ts';

export const VERNE_HOOKS = [
  'auth_on_register',
  'auth_on_publish',
  'auth_on_subscribe',
  'auth_on_register_m5',
  'auth_on_publish_m5',
  'auth_on_subscribe_m5',
] as const;
export type VerneHook = (typeof VERNE_HOOKS)[number];

const OK: VerneAnswer = { result: 'ok' };
const NOT_ALLOWED: VerneAnswer = { result: { error: 'not_allowed' } };

export function verneHookOf(header: string | string[] | undefined): VerneHook {
  const name = typeof header === 'string' ? header.trim() : '';
  const hook = VERNE_HOOKS.find((h) => h === name);
  if (!hook) {
    throw new AppError(
      'invalid_request',
      `The header vernemq-hook must name one of ${VERNE_HOOKS.join(', ')} (register only these hooks here).`,
      { param: 'vernemq-hook' },
    );
  }
  return hook;
}

function text(body: VerneHookBody, member: 'username' | 'password' | 'topic'): string {
  const value = body[member];
  if (typeof value !== 'string') {
    throw new AppError('invalid_request', `${member} must be a string.`, { param: member });
  }
  return value;
}

export async function verneAnswer(
  deps: HookDeps,
  hook: VerneHook,
  body: VerneHookBody,
): Promise<VerneAnswer> {
  const m5 = hook.endsWith('_m5');
  // An anonymous client has a null username: never a device.
  if (body.username === null) return NOT_ALLOWED;
  const username = text(body, 'username');
  if (hook.startsWith('auth_on_register')) {
    return (await hookLogin(deps, username, text(body, 'password'))) ? OK : NOT_ALLOWED;
  }
  if (hook.startsWith('auth_on_publish')) {
    return hookMayPublish(deps, username, text(body, 'topic')) ? OK : NOT_ALLOWED;
  }
  const wanted = body.topics;
  if (!Array.isArray(wanted) || wanted.length === 0) {
    throw new AppError('invalid_request', 'topics must be a list of {topic, qos}.', { param: 'topics' });
  }
  const answered = wanted.map(({ topic, qos }) => ({
    topic,
    qos: hookMaySubscribe(deps, username, topic) ? qos : m5 ? 135 : 128,
  }));
  const refused = answered.filter((t, i) => t.qos !== wanted[i]?.qos).length;
  if (refused === 0) return OK;
  if (refused === answered.length) return NOT_ALLOWED;
  return m5 ? { result: 'ok', modifiers: { topics: answered } } : { result: 'ok', topics: answered };
}
