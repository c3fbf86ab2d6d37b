/**
 * People and console sessions for tests: a person made through a real invite and setup link, signed in
 * with a real session cookie, and requests made with that cookie (and its CSRF token on writes).
 */
import assert from 'node:assert/strict';
import type { RoleName } from '../src/domain/permissions.ts';
import type { NewAccount } from '../src/modules/accounts/service.ts';
import type { Invite, Session } from '../src/modules/people/schemas.ts';
import type { Reply, RequestOptions, TestApp } from './harness.ts';

export const PASSWORD = 'correct horse battery staple';

export interface SignedIn {
  cookie: string;
  session: Session;
  /** A request with the session cookie; writes carry the CSRF token unless `csrf: false`. */
  request<T = unknown>(
    method: string,
    url: string,
    options?: RequestOptions & { csrf?: boolean },
  ): Promise<Reply<T>>;
}

let n = 0;

/** A unique email for a test person. */
export function newEmail(label = 'person'): string {
  return `${label}.${process.pid}.${Date.now()}.${++n}@farm.test`;
}

/** The `farmstead_session=…` pair of a reply's Set-Cookie, for the Cookie header. */
export function cookieOf(reply: Reply): string {
  const header = reply.headers['set-cookie'];
  const value = (Array.isArray(header) ? header[0] : String(header ?? '')) ?? '';
  const pair = /^(farmstead_session=[^;]*)/.exec(value)?.[1];
  assert.ok(pair, `no session cookie in ${value}`);
  return pair;
}

/** The token at the end of a setup link. */
export function tokenOf(url: string): string {
  const token = /\/setup\/([^/?#]+)$/.exec(url)?.[1];
  assert.ok(token, `not a setup link: ${url}`);
  return token;
}

/** Wraps a cookie into a signed-in client of the test app. */
export function asSession(t: TestApp, cookie: string, session: Session): SignedIn {
  return {
    cookie,
    session,
    request: (method, url, options = {}) => {
      const { csrf = true, ...rest } = options;
      const headers: Record<string, string> = { cookie, ...rest.headers };
      if (csrf && !['GET', 'HEAD', 'OPTIONS'].includes(method)) headers['x-csrf-token'] = session.csrf_token;
      return t.request(method, url, { ...rest, headers });
    },
  };
}

/** An invite made with the account's live key (POST /v1/people/invites). */
export async function invite(t: TestApp, account: NewAccount, role: RoleName, email = newEmail(role)) {
  const res = await t.request<Invite>('POST', '/v1/people/invites', {
    key: account.live_key,
    body: { email, role },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** A new person of the account with this role, set up through a real invite link and signed in. */
export async function signedInPerson(
  t: TestApp,
  account: NewAccount,
  role: RoleName,
  email = newEmail(role),
): Promise<SignedIn> {
  const link = await invite(t, account, role, email);
  const res = await t.request<Session>('POST', `/v1/setup/${tokenOf(link.url)}`, {
    body: { password: PASSWORD },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return asSession(t, cookieOf(res), res.body);
}

/**
 * Sets `person`'s quiet hours on a UTC farm to the hour before now through two hours after, so a notice
 * planned now is held (unless urgent breaks through, the default).
 */
export async function quietAroundNow(
  person: SignedIn,
  farmId: string,
  options: { urgent_breaks_through?: boolean } = {},
): Promise<void> {
  const hour = new Date().getUTCHours();
  const clock = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
  const res = await person.request('PATCH', '/v1/me/notification-settings', {
    body: { farm_id: farmId, quiet_hours: { start: clock(hour - 1), end: clock(hour + 2), ...options } },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
