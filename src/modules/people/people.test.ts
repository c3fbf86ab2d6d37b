/**
 * People, sign-in and sessions through the API on both engines: the cookie, sign-out, idle expiry (an
 * injected clock), password change, CSRF, the test-mode switch, setup links (once, 24 hours), invites,
 * the last owner, and the lock-out. Roles are tested route by route in test/roles.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, openApp } from '../../../test/harness.ts';
import {
  asSession,
  cookieOf,
  invite,
  newEmail,
  PASSWORD,
  signedInPerson,
  tokenOf,
} from '../../../test/people.ts';
import { loadConfig } from '../../config.ts';
import { DAY_MS, MINUTE_MS } from '../../lib/time.ts';
import { ADDRESS_RULE, bucketsOf, EMAIL_RULE, LOCK_MS, recordFailure } from './lockout.ts';
import { decoyHash, hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.ts';
import type { Person, Session, Setup } from './schemas.ts';
import { prunePeopleBookkeeping } from './service.ts';

/** The app's clock: real time (or the moment it was frozen at) plus what the tests have moved it on by. */
let offset = 0;
let frozenAt: number | null = null;
const clock = () => (frozenAt ?? Date.now()) + offset;
const advance = (ms: number) => {
  offset += ms;
};
/** Stops real time while `fn` runs: lock-out waits are a second or two, less than a slow request may take. */
async function frozen<T>(fn: () => Promise<T>): Promise<T> {
  frozenAt = Date.now();
  try {
    return await fn();
  } finally {
    frozenAt = null;
  }
}

type List<T> = { data: T[] };

forEachEngine(
  'people and sessions',
  (t) => {
    const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
      t().request<Session>('POST', '/v1/session', { body: { email, password }, headers });

    test('sign-in sets an HttpOnly, SameSite=Lax session cookie and answers the Session; wrong email or password is the same 401', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'owner');
      const email = person.session.person.email;
      const ok = await signIn(email.toUpperCase(), PASSWORD);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const cookie = String(ok.headers['set-cookie']);
      assert.match(
        cookie,
        /^farmstead_session=[0-9A-Za-z]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
      );
      assert.equal(ok.body.object, 'session');
      assert.equal(ok.body.person.email, email);
      assert.equal(ok.body.person.role, 'owner');
      assert.equal(ok.body.account.id, acct.account_id);
      assert.ok(ok.body.csrf_token.length >= 32);
      assert.ok(Date.parse(ok.body.expires_at) - clock() > 29 * DAY_MS);
      const wrong = expectError(await signIn(email, 'not the password'), 401, 'unauthorized');
      const unknown = expectError(await signIn(newEmail('nobody'), PASSWORD), 401, 'unauthorized');
      assert.equal(wrong.message, unknown.message, 'the same answer for an unknown email');
      assert.equal(
        expectError(await signIn('not-an-email', PASSWORD), 400, 'invalid_request').param,
        'email',
      );
    });

    test('the cookie is Secure when the request came over HTTPS (a trusted proxy)', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const res = await signIn(person.session.person.email, PASSWORD, { 'x-forwarded-proto': 'https' });
      assert.equal(res.status, 200);
      assert.match(String(res.headers['set-cookie']), /; Secure/);
    });

    test('the session cookie is a credential on /v1 routes; a bearer key wins over it; /v1/me names the person', async () => {
      const acct = await t().sharedAccount();
      const owner = await signedInPerson(t(), acct, 'owner');
      const farms = await owner.request<List<{ id: string }>>('GET', '/v1/farms');
      assert.equal(farms.status, 200);
      assert.ok(farms.body.data.some((f) => f.id === acct.sample_farm_id));
      const me = await owner.request<{ key: unknown; person: Person; mode: string }>('GET', '/v1/me');
      assert.equal(me.body.key, null);
      assert.equal(me.body.person.id, owner.session.person.id);
      assert.equal(me.body.mode, 'test');
      // Another account's key with this account's cookie: the key decides.
      const other = await t().account();
      const both = await t().request<{ key: { id: string } | null }>('GET', '/v1/me', {
        key: other.live_key,
        headers: { cookie: owner.cookie },
      });
      assert.notEqual(both.body.key, null);
      const otherFarms = await t().request<List<{ id: string }>>('GET', '/v1/farms', {
        key: other.test_key,
        headers: { cookie: owner.cookie },
      });
      assert.ok(!otherFarms.body.data.some((f) => f.id === acct.sample_farm_id));
      // GET /v1/session wants the cookie, not a key.
      expectError(await t().request('GET', '/v1/session', { key: acct.live_key }), 401, 'unauthorized');
      expectError(
        await t().request('GET', '/v1/farms', { headers: { cookie: 'farmstead_session=forged' } }),
        401,
        'unauthorized',
      );
    });

    test('sign-out ends the session and clears the cookie', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const out = await person.request('DELETE', '/v1/session');
      assert.equal(out.status, 204);
      assert.match(String(out.headers['set-cookie']), /^farmstead_session=; Max-Age=0; Path=\/; HttpOnly/);
      expectError(await person.request('GET', '/v1/session'), 401, 'unauthorized');
      expectError(await person.request('GET', '/v1/farms'), 401, 'unauthorized');
    });

    test('a session ends after 30 days idle; each use moves the expiry on (last seen written at most once a minute)', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const lastSeen = async () =>
        Number(
          (
            await t()
              .database.db.selectFrom('sessions')
              .innerJoin('people', 'people.id', 'sessions.person_id')
              .select('sessions.last_seen_at')
              .where('people.email', '=', person.session.person.email)
              .executeTakeFirstOrThrow()
          ).last_seen_at,
        );
      const start = await lastSeen();
      advance(30_000);
      assert.equal((await person.request('GET', '/v1/session')).status, 200);
      assert.equal(await lastSeen(), start, 'not written again within a minute');
      advance(29 * DAY_MS);
      const alive = await person.request<Session>('GET', '/v1/session');
      assert.equal(alive.status, 200);
      assert.ok((await lastSeen()) > start);
      assert.equal(Date.parse(alive.body.expires_at), (await lastSeen()) + 30 * DAY_MS);
      advance(29 * DAY_MS);
      assert.equal((await person.request('GET', '/v1/farms')).status, 200, 'sliding: 58 days after sign-in');
      advance(30 * DAY_MS + MINUTE_MS);
      const ended = expectError(await person.request('GET', '/v1/farms'), 401, 'unauthorized');
      assert.match(ended.message, /30 days/);
    });

    test('a password change checks the current password, keeps this session and ends the others', async () => {
      const acct = await t().sharedAccount();
      const a = await signedInPerson(t(), acct, 'owner');
      const email = a.session.person.email;
      const second = await signIn(email, PASSWORD);
      const b = asSession(t(), cookieOf(second), second.body);
      const change = (body: object) => a.request('POST', '/v1/session/password', { body });
      const wrong = expectError(
        await change({ current_password: 'not it at all', new_password: 'a brand new secret' }),
        400,
        'invalid_request',
      );
      assert.equal(wrong.param, 'current_password');
      const short = expectError(
        await change({ current_password: PASSWORD, new_password: 'short' }),
        400,
        'invalid_request',
      );
      assert.equal(short.param, 'new_password');
      assert.equal(
        (await change({ current_password: PASSWORD, new_password: 'a brand new secret' })).status,
        204,
      );
      assert.equal((await a.request('GET', '/v1/session')).status, 200, 'this session stays');
      expectError(await b.request('GET', '/v1/session'), 401, 'unauthorized');
      expectError(await signIn(email, PASSWORD), 401, 'unauthorized');
      assert.equal((await signIn(email, 'a brand new secret')).status, 200);
    });

    test('cookie writes need X-CSRF-Token; bearer-key writes need none', async () => {
      const acct = await t().sharedAccount();
      const crew = await signedInPerson(t(), acct, 'crew');
      const path = `/v1/farms/${acct.sample_farm_id}/tasks`;
      const missing = expectError(
        await crew.request('POST', path, { body: { title: 'Check water' }, csrf: false }),
        403,
        'forbidden',
      );
      assert.match(missing.message, /X-CSRF-Token/);
      expectError(
        await crew.request('POST', path, {
          body: { title: 'Check water' },
          csrf: false,
          headers: { 'x-csrf-token': 'guessed' },
        }),
        403,
        'forbidden',
      );
      expectError(await crew.request('DELETE', '/v1/session', { csrf: false }), 403, 'forbidden');
      assert.equal((await crew.request('POST', path, { body: { title: 'Check water' } })).status, 201);
      assert.equal(
        (await t().request('POST', path, { key: acct.test_key, body: { title: 'Check feed' } })).status,
        201,
      );
    });

    test('the mode switch: test mode shows the sample farm, live mode the live farms', async () => {
      const acct = await t().account();
      const owner = await signedInPerson(t(), acct, 'owner');
      assert.equal(owner.session.mode, 'test', 'an account without live farms opens in test mode');
      const names = async () =>
        (await owner.request<List<{ id: string }>>('GET', '/v1/farms')).body.data.map((f) => f.id);
      assert.deepEqual(await names(), [acct.sample_farm_id]);
      const live = await owner.request<Session>('PATCH', '/v1/session', { body: { mode: 'live' } });
      assert.equal(live.status, 200);
      assert.equal(live.body.mode, 'live');
      assert.deepEqual(await names(), []);
      expectError(await owner.request('GET', `/v1/farms/${acct.sample_farm_id}`), 404, 'not_found');
      const made = await owner.request<{ id: string }>('POST', '/v1/farms', { body: { name: 'Home farm' } });
      assert.equal(made.status, 201);
      assert.deepEqual(await names(), [made.body.id]);
      expectError(
        await owner.request('PATCH', '/v1/session', { body: { mode: 'staging' } }),
        400,
        'invalid_request',
      );
      // With a live farm, a new session opens in live mode.
      const again = await signIn(owner.session.person.email, PASSWORD);
      assert.equal(again.body.mode, 'live');
    });

    test('a setup link works once; it shows its email and role first; it expires after 24 hours', async () => {
      const acct = await t().sharedAccount();
      const email = newEmail('invited');
      const link = await invite(t(), acct, 'crew', email);
      assert.ok(link.url.startsWith(`${t().config.publicUrl}/setup/`));
      const token = tokenOf(link.url);
      const shown = await t().request<Setup>('GET', `/v1/setup/${token}`);
      assert.equal(shown.status, 200);
      assert.deepEqual(
        { email: shown.body.email, role: shown.body.role, account: shown.body.account.id },
        { email, role: 'crew', account: acct.account_id },
      );
      const short = expectError(
        await t().request('POST', `/v1/setup/${token}`, { body: { password: 'short' } }),
        400,
        'invalid_request',
      );
      assert.equal(short.param, 'password');
      const other = expectError(
        await t().request('POST', `/v1/setup/${token}`, {
          body: { password: PASSWORD, email: newEmail() },
        }),
        400,
        'invalid_request',
      );
      assert.equal(other.param, 'email');
      const used = await t().request<Session>('POST', `/v1/setup/${token}`, {
        body: { password: PASSWORD, name: 'Sam' },
      });
      assert.equal(used.status, 200);
      assert.equal(used.body.person.name, 'Sam');
      assert.match(String(used.headers['set-cookie']), /^farmstead_session=/);
      expectError(await t().request('GET', `/v1/setup/${token}`), 404, 'not_found');
      expectError(
        await t().request('POST', `/v1/setup/${token}`, { body: { password: PASSWORD } }),
        404,
        'not_found',
      );

      const later = tokenOf((await invite(t(), acct, 'crew')).url);
      advance(24 * 60 * MINUTE_MS + 1_000);
      expectError(await t().request('GET', `/v1/setup/${later}`), 404, 'not_found');
      expectError(
        await t().request('POST', `/v1/setup/${later}`, { body: { password: PASSWORD } }),
        404,
        'not_found',
      );
      expectError(await t().request('GET', '/v1/setup/made-up'), 404, 'not_found');
    });

    test('an invite for one of the account’s people sets a new password (the way back in); another account’s email is 409', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const email = person.session.person.email;
      const reset = tokenOf((await invite(t(), acct, 'crew', email)).url);
      const done = await t().request<Session>('POST', `/v1/setup/${reset}`, {
        body: { password: 'my new long password' },
      });
      assert.equal(done.status, 200);
      assert.equal(done.body.person.id, person.session.person.id);
      expectError(await person.request('GET', '/v1/session'), 401, 'unauthorized');
      assert.equal((await signIn(email, 'my new long password')).status, 200);

      const other = await t().account();
      const taken = expectError(
        await t().request('POST', '/v1/people/invites', {
          key: other.live_key,
          body: { email, role: 'crew' },
        }),
        409,
        'conflict',
      );
      assert.equal(taken.param, 'email');
    });

    test('owners invite and list people from the API; test keys and crew cannot', async () => {
      const acct = await t().account();
      const owner = await signedInPerson(t(), acct, 'owner');
      const email = newEmail('crew');
      const made = await owner.request<{ url: string; email: string; role: string }>(
        'POST',
        '/v1/people/invites',
        { body: { email, role: 'crew' } },
      );
      assert.equal(made.status, 201);
      assert.deepEqual({ email: made.body.email, role: made.body.role }, { email, role: 'crew' });
      await t().request('POST', `/v1/setup/${tokenOf(made.body.url)}`, { body: { password: PASSWORD } });
      const listed = await owner.request<{ object: string; data: Person[] }>('GET', '/v1/people');
      assert.equal(listed.body.object, 'list');
      assert.deepEqual(
        listed.body.data.map((p) => [p.email, p.role]).sort(),
        [
          [email, 'crew'],
          [owner.session.person.email, 'owner'],
        ].sort(),
      );
      expectError(await t().request('GET', '/v1/people', { key: acct.test_key }), 403, 'forbidden');
      expectError(
        await t().request('POST', '/v1/people/invites', {
          key: acct.test_key,
          body: { email: newEmail(), role: 'owner' },
        }),
        403,
        'forbidden',
      );
      expectError(
        await owner.request('POST', '/v1/people/invites', { body: { email: newEmail(), role: 'admin' } }),
        400,
        'invalid_request',
      );
    });

    test('a restricted key manages only people whose role it covers: no owner made, promoted, reset or removed', async () => {
      const acct = await t().account();
      const crew = await signedInPerson(t(), acct, 'crew');
      const owner = await signedInPerson(t(), acct, 'owner');
      const farm = await make.farm(t(), acct.live_key);
      const restricted = async (body: Record<string, unknown>) => {
        const made = await t().request<{ key: string }>('POST', '/v1/keys', {
          key: acct.live_key,
          body: { name: 'limited', ...body },
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        return made.body.key;
      };
      // keys:write alone, on one farm: it may list people, but hands out no role.
      const keysOnly = await restricted({ permissions: { keys: 'write' }, farms: [farm.id] });
      assert.equal((await t().request('GET', '/v1/people', { key: keysOnly })).status, 200);
      const as = (key: string, method: string, path: string, body?: unknown) =>
        t().request(method, path, { key, ...(body ? { body } : {}) });
      for (const [method, path, body] of [
        ['POST', '/v1/people/invites', { email: newEmail(), role: 'owner' }],
        ['POST', '/v1/people/invites', { email: newEmail(), role: 'crew' }],
        ['POST', '/v1/people/invites', { email: owner.session.person.email, role: 'owner' }],
        ['PATCH', `/v1/people/${crew.session.person.id}`, { role: 'owner' }],
        ['DELETE', `/v1/people/${owner.session.person.id}`, undefined],
      ] as const) {
        expectError(await as(keysOnly, method, path, body), 403, 'forbidden');
      }
      // Every family at write but one farm: a role reaches every farm, so still none.
      const oneFarm = await restricted({ farms: [farm.id] });
      expectError(
        await as(oneFarm, 'POST', '/v1/people/invites', { email: newEmail(), role: 'crew' }),
        403,
        'forbidden',
      );
      // Write on every family but webhooks, every farm: crew yes, owner (or resetting one) no.
      const noWebhooks = await restricted({
        permissions: { records: 'write', devices: 'write', alerts: 'write', keys: 'write' },
      });
      const invited = await as(noWebhooks, 'POST', '/v1/people/invites', { email: newEmail(), role: 'crew' });
      assert.equal(invited.status, 201, JSON.stringify(invited.body));
      expectError(
        await as(noWebhooks, 'POST', '/v1/people/invites', {
          email: owner.session.person.email,
          role: 'crew',
        }),
        403,
        'forbidden',
      );
      expectError(
        await as(noWebhooks, 'PATCH', `/v1/people/${crew.session.person.id}`, { role: 'owner' }),
        403,
        'forbidden',
      );
      assert.equal((await crew.request('GET', '/v1/session')).status, 200, 'nothing changed for the crew');
      // The account's unrestricted live key still does it all.
      const promoted = await as(acct.live_key, 'PATCH', `/v1/people/${crew.session.person.id}`, {
        role: 'owner',
      });
      assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
    });

    test('the last owner can be neither demoted nor removed; a removed person’s sessions end', async () => {
      const acct = await t().account();
      const owner = await signedInPerson(t(), acct, 'owner');
      const id = owner.session.person.id;
      expectError(
        await owner.request('PATCH', `/v1/people/${id}`, { body: { role: 'crew' } }),
        409,
        'conflict',
      );
      expectError(await owner.request('DELETE', `/v1/people/${id}`), 409, 'conflict');
      const second = await signedInPerson(t(), acct, 'owner');
      const demoted = await owner.request<Person>('PATCH', `/v1/people/${id}`, { body: { role: 'crew' } });
      assert.equal(demoted.status, 200);
      assert.equal(demoted.body.role, 'crew');
      expectError(await owner.request('GET', '/v1/people'), 403, 'forbidden');
      const secondId = second.session.person.id;
      expectError(await second.request('DELETE', `/v1/people/${secondId}`), 409, 'conflict');
      assert.equal((await second.request('DELETE', `/v1/people/${id}`)).status, 204);
      expectError(await owner.request('GET', '/v1/session'), 401, 'unauthorized');
      expectError(await second.request('DELETE', `/v1/people/${id}`), 404, 'not_found');
    });

    test('lock-out: failures for one email are slowed, then refused for 15 minutes (429 with Retry-After), even with the right password', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const email = person.session.person.email;
      // From its own address, so the other tests' address is not the one held back.
      const from = { 'x-forwarded-for': '198.51.100.7' };
      await frozen(async () => {
        for (let i = 0; i < EMAIL_RULE.free; i++) {
          expectError(await signIn(email, `wrong password ${i}`, from), 401, 'unauthorized');
        }
        const slowed = await signIn(email, PASSWORD, from);
        expectError(slowed, 429, 'rate_limited');
        assert.equal(slowed.headers['retry-after'], '1');
        for (let i = EMAIL_RULE.free; i < EMAIL_RULE.refuseAt; i++) {
          advance(1_000 * 2 ** (i - EMAIL_RULE.free));
          expectError(await signIn(email, `wrong password ${i}`, from), 401, 'unauthorized');
        }
        const refused = await signIn(email, PASSWORD, from);
        const error = expectError(refused, 429, 'rate_limited');
        assert.match(error.message, /Try again in \d+ s/);
        assert.equal(Number(refused.headers['retry-after']), LOCK_MS / 1_000);
        // Another address is refused too: the email itself is locked.
        expectError(
          await signIn(email, PASSWORD, { 'x-forwarded-for': '198.51.100.8' }),
          429,
          'rate_limited',
        );
        advance(LOCK_MS + 1_000);
        assert.equal((await signIn(email, PASSWORD, from)).status, 200);
      });
    });

    test('lock-out: failures from one address are refused for every email from it', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const address = '203.0.113.9';
      const now = clock();
      for (let i = 0; i < ADDRESS_RULE.refuseAt; i++) {
        await recordFailure(t().database.db, bucketsOf(newEmail('guess'), address), now);
      }
      const refused = await signIn(person.session.person.email, PASSWORD, { 'x-forwarded-for': address });
      expectError(refused, 429, 'rate_limited');
      assert.ok(Number(refused.headers['retry-after']) > 60);
      const elsewhere = await signIn(person.session.person.email, PASSWORD, {
        'x-forwarded-for': '203.0.113.10',
      });
      assert.equal(elsewhere.status, 200);
    });

    test('the people.prune job removes idle sessions, long-expired links and forgotten failures, and nothing live', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const token = tokenOf((await invite(t(), acct, 'crew')).url);
      const db = t().database.db;
      await recordFailure(db, bucketsOf(newEmail('prune'), '192.0.2.44'), clock());
      await prunePeopleBookkeeping(db, clock());
      assert.equal((await person.request('GET', '/v1/session')).status, 200, 'a live session stays');
      assert.equal((await t().request('GET', `/v1/setup/${token}`)).status, 200, 'a usable link stays');
      advance(31 * DAY_MS);
      const pruned = await prunePeopleBookkeeping(db, clock());
      assert.ok(pruned.sessions >= 1 && pruned.links >= 1 && pruned.failures >= 1, JSON.stringify(pruned));
      const left = await db
        .selectFrom('sign_in_failures')
        .select('bucket')
        .where('bucket', '=', 'ip:192.0.2.44')
        .execute();
      assert.deepEqual(left, []);
      expectError(await person.request('GET', '/v1/session'), 401, 'unauthorized');
    });

    test('another process on the same database honours the session, its sign-out and the lock-out', async () => {
      const acct = await t().sharedAccount();
      const person = await signedInPerson(t(), acct, 'crew');
      const other = await openApp(t().engine, t().config, 'Other process', clock);
      try {
        const there = asSession(other, person.cookie, person.session);
        assert.equal((await there.request('GET', '/v1/session')).status, 200);
        assert.equal((await person.request('DELETE', '/v1/session')).status, 204);
        expectError(await there.request('GET', '/v1/farms'), 401, 'unauthorized');

        const email = person.session.person.email;
        const from = { 'x-forwarded-for': '198.51.100.20' };
        await frozen(async () => {
          for (let i = 0; i < EMAIL_RULE.free; i++) {
            expectError(await signIn(email, `wrong password ${i}`, from), 401, 'unauthorized');
          }
          const elsewhere = await other.request('POST', '/v1/session', {
            body: { email, password: PASSWORD },
            headers: from,
          });
          expectError(elsewhere, 429, 'rate_limited');
        });
      } finally {
        await other.close();
      }
    });

    test('new password hashes carry the configured cost (the production default unless set); a stored hash of another cost still signs in', async () => {
      // The harness hashes at the lowest cost to keep tests fast; this process runs at the default.
      const production = loadConfig({}).passwordCost;
      assert.equal(production, 15);
      assert.equal(t().config.passwordCost, 10);
      const acct = await t().sharedAccount();
      const hashOf = async (email: string) => {
        const row = await t()
          .database.db.selectFrom('people')
          .select('password_hash')
          .where('email', '=', email)
          .executeTakeFirstOrThrow();
        return row.password_hash;
      };
      const other = await openApp(t().engine, { ...t().config, passwordCost: production }, 'Default cost');
      try {
        const strong = await signedInPerson(other, acct, 'crew');
        assert.match(
          await hashOf(strong.session.person.email),
          /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/,
        );
        const weak = await signedInPerson(t(), acct, 'crew');
        assert.match(await hashOf(weak.session.person.email), /^scrypt\$1024\$8\$1\$/);
        // Each app checks the other's hash with the hash's own parameters.
        assert.equal((await signIn(strong.session.person.email, PASSWORD)).status, 200);
        const there = await other.request('POST', '/v1/session', {
          body: { email: weak.session.person.email, password: PASSWORD },
        });
        assert.equal(there.status, 200, JSON.stringify(there.body));
        expectError(await signIn(strong.session.person.email, 'not the password'), 401, 'unauthorized');
      } finally {
        await other.close();
      }
    });
  },
  { trustProxy: true },
  { clock },
);

test('the decoy an unknown email is checked against costs what a new hash of the configured cost does', async () => {
  assert.match(decoyHash(10), /^scrypt\$1024\$8\$1\$/);
  assert.match(decoyHash(15), /^scrypt\$32768\$8\$1\$/);
  assert.equal(decoyHash(10), decoyHash(10));
  assert.equal(await verifyAgainstDecoy(PASSWORD, 10), false);
  // A real hash of that cost has the decoy's shape: same parameters, same salt and key lengths.
  const real = await hashPassword(PASSWORD, 10);
  assert.deepEqual(
    real.split('$').map((part) => part.length),
    decoyHash(10)
      .split('$')
      .map((part) => part.length),
  );
  assert.equal(real.split('$').slice(0, 4).join('$'), decoyHash(10).split('$').slice(0, 4).join('$'));
  assert.equal(await verifyPassword(PASSWORD, real), true);
});
