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
import { type KickAdapter, type KickOutcome, statusOutcome } from './kick.ts';
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
    const session = { clientId: body.client_id, mountpoint: body.mountpoint };
    // A CONNECT with a username and no password is a login refused, not a malformed hook call.
    if (typeof body.password !== 'string') return NOT_ALLOWED;
    return (await hookLogin(deps, username, body.password, session)) ? OK : NOT_ALLOWED;
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

/**
 * VerneMQ's HTTP API reads a client id into its own query language between double quotes
 * (`vmq-admin session disconnect`): a client id or mountpoint with a quote or backslash is not sent.
 */
const VERNE_SAFE = /^[^"\\]*$/;

/** A clique answer (`{"type": "alert", …}`, or a list of them) that reports a failure. */
function isAlert(answer: unknown): boolean {
  if (Array.isArray(answer)) return answer.some(isAlert);
  return typeof answer === 'object' && answer !== null && (answer as { type?: unknown }).type === 'alert';
}

/**
 * VerneMQ's kick (vernemq/vmq-docs administration/http-administration.md, "Disconnect a client"):
 * `GET /api/v1/session/disconnect?client-id=…` (`&--mountpoint=…` off the default mountpoint), HTTP Basic
 * with the API key as the user and no password. 200 with `[]` or a text (`Done`) when it ran; a `type:
 * "alert"` answer is a failure (the usage text). It answers the same whether or not the client was there.
 */
export const verneKick: KickAdapter = {
  byDevice: false,
  target: (login) =>
    login.clientId && VERNE_SAFE.test(login.clientId) && VERNE_SAFE.test(login.mountpoint)
      ? `${login.mountpoint}\u0000${login.clientId}`
      : null,
  request: (login) => {
    const query = new URLSearchParams({ 'client-id': login.clientId ?? '' });
    if (login.mountpoint !== '') query.set('--mountpoint', login.mountpoint);
    return { method: 'GET', path: `/api/v1/session/disconnect?${query}` };
  },
  outcome: (status, body): KickOutcome => {
    const byStatus = statusOutcome(status);
    if (byStatus !== 'done') return byStatus;
    try {
      return isAlert(JSON.parse(body.toString('utf8'))) ? 'failed' : 'done';
    } catch {
      return 'failed';
    }
  },
};
