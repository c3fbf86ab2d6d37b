/**
 * EMQX 5's HTTP authentication and HTTP authorization (docs.emqx.com, "Use HTTP Service" under
 * access-control/authn/http and authz/http). EMQX sends what the operator configures; docs/deployment.md
 * gives the bodies to paste: `{"username": "${username}", "password": "${password}", "clientid":
 * "${clientid}"}` and `{"username": "${username}", "clientid": "${clientid}", "action": "${action}",
 * "topic": "${topic}"}`. Answers are 200 with `{"result": "allow" | "deny"}` (and `is_superuser` for
 * authentication). Farmstead never answers "ignore": it is the authority on devices, so an unknown login
 * is denied rather than passed down EMQX's chain.
 */
import { type KickAdapter, statusOutcome } from './kick.ts';
import type { EmqxAuthnBody, EmqxAuthzBody } from './schemas.ts';
import { type HookDeps, hookLogin, hookMayPublish, hookMaySubscribe } from './service.ts';

export interface EmqxAuthnAnswer {
  result: 'allow' | 'deny';
  is_superuser: boolean;
}

export async function emqxAuthenticate(deps: HookDeps, body: EmqxAuthnBody): Promise<EmqxAuthnAnswer> {
  const login = await hookLogin(deps, body.username, body.password, { clientId: body.clientid });
  if (!login) return { result: 'deny', is_superuser: false };
  return { result: 'allow', is_superuser: login.kind === 'service' };
}

export function emqxAuthorize(deps: HookDeps, body: EmqxAuthzBody): { result: 'allow' | 'deny' } {
  const allowed =
    body.action === 'publish'
      ? hookMayPublish(deps, body.username, body.topic)
      : body.action === 'subscribe' && hookMaySubscribe(deps, body.username, body.topic);
  return { result: allowed ? 'allow' : 'deny' };
}

/**
 * EMQX 5's kick (docs.emqx.com, REST API "Clients": `DELETE /api/v5/clients/{clientid}`, HTTP Basic with an
 * API key and its secret): 204 when the client was disconnected, 404 `CLIENTID_NOT_FOUND` when it is not
 * there. By client id, so only a login whose authentication body carried `clientid` can be kicked.
 */
export const emqxKick: KickAdapter = {
  byDevice: false,
  target: (login) => login.clientId,
  request: (login) => ({
    method: 'DELETE',
    path: `/api/v5/clients/${encodeURIComponent(login.clientId ?? '')}`,
  }),
  outcome: (status) => statusOutcome(status),
};
