/**
 * A person's units and language (issue 45): PATCH /v1/me sets them, GET /v1/me and the session show them,
 * the setup link takes the ones the console proposes from the browser's locale, and bad input is a 400
 * naming the member with nothing written. Both engines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { invite, PASSWORD, signedInPerson, tokenOf } from '../../../test/people.ts';
import type { Person, Session } from '../people/schemas.ts';

type Me = { person?: Person; key: unknown };

forEachEngine('units and language (PATCH /v1/me)', (t) => {
  test('a new person reads metric and English; PATCH /v1/me changes each alone, GET /v1/me shows them', async () => {
    const acct = await t().sharedAccount();
    const person = await signedInPerson(t(), acct, 'crew');
    assert.equal(person.session.person.units, 'metric');
    assert.equal(person.session.person.language, 'en');
    const us = await person.request<Person>('PATCH', '/v1/me', { body: { units: 'us' } });
    assert.equal(us.status, 200, JSON.stringify(us.body));
    assert.deepEqual([us.body.units, us.body.language], ['us', 'en']);
    const es = await person.request<Person>('PATCH', '/v1/me', { body: { language: 'es' } });
    assert.deepEqual([es.body.units, es.body.language], ['us', 'es']);
    const me = await person.request<Me>('GET', '/v1/me');
    assert.deepEqual([me.body.person?.units, me.body.person?.language], ['us', 'es']);
    const session = await person.request<Session>('GET', '/v1/session');
    assert.equal(session.body.person.language, 'es');
  });

  test('bad units or language, an unknown member or an empty body: 400 naming it, nothing written', async () => {
    const acct = await t().sharedAccount();
    const person = await signedInPerson(t(), acct, 'owner');
    for (const [body, param] of [
      [{ units: 'imperial' }, 'units'],
      [{ language: 'fr', units: 'us' }, 'language'],
      [{ units: 'us', colour: 'red' }, 'colour'],
    ] as const) {
      const res = await person.request('PATCH', '/v1/me', { body });
      assert.equal(expectError(res, 400, 'invalid_request').param, param, JSON.stringify(res.body));
    }
    expectError(await person.request('PATCH', '/v1/me', { body: {} }), 400, 'invalid_request');
    const me = await person.request<Me>('GET', '/v1/me');
    assert.deepEqual([me.body.person?.units, me.body.person?.language], ['metric', 'en']);
  });

  test('an API key has no person: 401; without the CSRF token: 403', async () => {
    const acct = await t().sharedAccount();
    const res = await t().request('PATCH', '/v1/me', { key: acct.live_key, body: { units: 'us' } });
    expectError(res, 401, 'unauthorized');
    const person = await signedInPerson(t(), acct, 'crew');
    const noCsrf = await person.request('PATCH', '/v1/me', { body: { units: 'us' }, csrf: false });
    assert.equal(noCsrf.status, 403);
  });

  test('setting up a sign-in takes the units and language the console proposes', async () => {
    const acct = await t().sharedAccount();
    const link = await invite(t(), acct, 'crew');
    const res = await t().request<Session>('POST', `/v1/setup/${tokenOf(link.url)}`, {
      body: { password: PASSWORD, units: 'us', language: 'es' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.person.units, res.body.person.language], ['us', 'es']);
  });
});
