/**
 * ntfy end to end on both engines: a person saves their topic (and a token) with PATCH
 * /v1/me/notification-settings; the worker's turn publishes to a real local server speaking ntfy's publish
 * API (test/ntfy-server.ts); pressing the message's Acknowledge button, as the ntfy app does, is a real HTTP
 * request to the app listening on a port, and acknowledges the alert for that person.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { type NtfyServer, startNtfyServer } from '../../../test/ntfy-server.ts';
import { asSession, quietAroundNow, type SignedIn, signedInPerson } from '../../../test/people.ts';
import type { Config } from '../../config.ts';
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts';
import { notificationTurn } from '../../workers/notification-delivery.ts';

let ntfy: NtfyServer;
before(async () => {
  ntfy = await startNtfyServer();
});
after(() => ntfy.close());

let topics = 0;
const newTopic = () => `farm-alerts-${process.pid}-${++topics}`;
const TOKEN = 'tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2';

interface NtfyView {
  url: string;
  token: string | null;
}
interface Patched {
  channels: { ntfy: string[] };
  ntfy: NtfyView | null;
}
interface LogRow {
  channel: string;
  kind: string;
  status: string;
  answer: string | null;
  step: number;
  title: string;
  next_attempt_at: string | null;
}

/** A rate-limited ntfy server: every publish answers 429 with this Retry-After (ntfy.sh's own answer). */
async function rateLimited(retryAfter: string): Promise<{ url: string; hits: () => number; close(): void }> {
  let hits = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': retryAfter });
      res.end('{"code":42901,"http":429,"error":"limit reached: too many requests"}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits: () => hits,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

forEachEngine(
  'ntfy',
  (t) => {
    let base = '';
    before(async () => {
      base = await t().app.listen({ host: '127.0.0.1', port: 0 });
    });

    /** The worker's turn at `now`, with the app's real address as the public URL (the action posts there). */
    function turn(now: number, overrides: Partial<Config> = {}) {
      return notificationTurn(
        { database: t().database, config: { ...t().config, publicUrl: base, ...overrides } },
        now,
        { briefs: false },
      );
    }

    async function saveTopic(person: SignedIn, farmId: string, ntfyMember: unknown) {
      return person.request<Patched>('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: farmId, ntfy: ntfyMember },
      });
    }

    /** An account with a farm, a house, an owner (protected topic) and a crew member (open topic). */
    async function farmWithTopics(tt: TestApp) {
      const account = await tt.account();
      const farm = await make.farm(tt, account.live_key, { name: 'Ridge', timezone: 'UTC' });
      const house = await make.device(tt, account.live_key, farm.id, { type: 'house', name: 'Barn 1' });
      const owner = await signedInPerson(tt, account, 'owner');
      const crew = await signedInPerson(tt, account, 'crew');
      const ownerTopic = newTopic();
      const crewTopic = newTopic();
      ntfy.protect(ownerTopic, TOKEN);
      const o = await saveTopic(owner, farm.id, { url: `${ntfy.url}/${ownerTopic}`, token: TOKEN });
      assert.equal(o.status, 200, JSON.stringify(o.body));
      const c = await saveTopic(crew, farm.id, { url: `${ntfy.url}/${crewTopic}` });
      assert.equal(c.status, 200, JSON.stringify(c.body));
      return { account, farm, house, owner, crew, ownerTopic, crewTopic };
    }

    const on = (topic: string) => ntfy.messages.filter((m) => m.topic === topic);

    async function alerts(key: string, farmId: string) {
      const res = await t().request<{ data: { id: string; status: string; severity: string }[] }>(
        'GET',
        `/v1/farms/${farmId}/alerts`,
        { key },
      );
      return res.body.data;
    }

    test('a topic is saved for every farm; the token is never shown in full; null removes it', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Topic farm' });
      const other = await make.farm(t(), account.live_key, { name: 'Second farm' });
      const owner = await signedInPerson(t(), account, 'owner');
      const url = `${ntfy.url}/${newTopic()}`;
      const saved = await saveTopic(owner, farm.id, { url, token: TOKEN });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      // The token is shown as its last four characters.
      assert.deepEqual(saved.body.ntfy, { url, token: '…NIz2' });
      assert.deepEqual(saved.body.channels.ntfy, ['urgent', 'watch']);
      const got = await owner.request<{ ntfy: NtfyView | null; farms: { farm_id: string }[] }>(
        'GET',
        '/v1/me/notification-settings',
      );
      assert.equal(got.body.ntfy?.url, url);
      assert.ok(!JSON.stringify(got.body).includes(TOKEN), 'the token is not in the answer');
      assert.deepEqual(got.body.farms.map((f) => f.farm_id).sort(), [farm.id, other.id].sort());
      // Saved again without a token, on the same server: the token is kept.
      const kept = await saveTopic(owner, other.id, { url: `${url}-b` });
      assert.equal(kept.body.ntfy?.token, `…${TOKEN.slice(-4)}`);
      // Another server: the token is never sent there.
      const moved = await saveTopic(owner, farm.id, { url: `http://localhost:1/${newTopic()}` });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.equal(moved.body.ntfy?.token, null);
      const removed = await saveTopic(owner, farm.id, null);
      assert.equal(removed.body.ntfy, null);
      // A URL without a topic, or with a query, is refused naming the member.
      for (const bad of [`${ntfy.url}/`, `${ntfy.url}/topic?auth=x`, 'ftp://ntfy.example.com/t']) {
        const res = await saveTopic(owner, farm.id, { url: bad });
        assert.equal(expectError(res, 400, 'invalid_request').param, 'ntfy.url', bad);
      }
      const header = await saveTopic(owner, farm.id, { url, token: 'tk_a\r\nX-Evil: 1' });
      const refused = expectError(header, 400, 'invalid_request');
      assert.equal(refused.param, 'ntfy.token');
      assert.ok(!JSON.stringify(header.body).includes('tk_a'), 'a refused token is not echoed');
    });

    test('a private address is refused when saved (the SSRF guard), and again when sent', async () => {
      const account = await t().sharedAccount();
      const farm = await make.farm(t(), account.live_key, { name: 'Guarded' });
      const signed = await signedInPerson(t(), account, 'crew');
      // This suite's app allows private addresses (the ntfy server is on 127.0.0.1); this one does not.
      const strict = await openTestAppOn(t(), { webhookAllowPrivate: false });
      try {
        const person = asSession(strict, signed.cookie, signed.session);
        for (const url of [
          `${ntfy.url}/${newTopic()}`,
          'http://169.254.169.254/topic',
          'http://localhost/t',
        ]) {
          const res = await person.request('PATCH', '/v1/me/notification-settings', {
            body: { farm_id: farm.id, ntfy: { url } },
          });
          const body = expectError(res, 400, 'invalid_request');
          assert.equal(body.param, 'ntfy.url');
          assert.match(body.message, /loopback|link-local/);
        }
      } finally {
        await strict.close();
      }
      // Saved while allowed, then sent by a worker that refuses private addresses: refused, final.
      const topic = newTopic();
      assert.equal((await saveTopic(signed, farm.id, { url: `${ntfy.url}/${topic}` })).status, 200);
      const test = await signed.request('POST', '/v1/me/notifications/test', { body: { channel: 'ntfy' } });
      assert.equal(test.status, 202, JSON.stringify(test.body));
      await turn(Date.now(), { webhookAllowPrivate: false });
      assert.equal(on(topic).length, 0);
      const [row] = (await signed.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      assert.equal(row?.channel, 'ntfy');
      assert.equal(row?.status, 'failed');
      assert.match(String(row?.answer), /^refused: .*loopback/);
    });

    test('an urgent alert: priority 5, the token as Bearer, an Acknowledge action that acknowledges for that person', async () => {
      const s = await farmWithTopics(t());
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 27 }] });
      const [alert] = await alerts(s.account.live_key, s.farm.id);
      assert.ok(alert);
      await turn(start);

      const [owners] = on(s.ownerTopic);
      assert.ok(owners, 'the owner’s topic got the alert');
      assert.equal(owners.headers.authorization, `Bearer ${TOKEN}`);
      assert.equal(owners.priority, 5);
      assert.equal(owners.title, 'Urgent: High ammonia in Barn 1');
      assert.match(owners.message, /Ammonia 27 ppm in Barn 1.*Ridge/);
      assert.deepEqual(owners.tags, ['rotating_light']);
      assert.equal(owners.click, `${base}/alerts?alert=${alert.id}`);
      const ack = owners.actions.find((a) => a.label === 'Acknowledge');
      assert.equal(ack?.action, 'http');
      assert.equal(ack?.method, 'POST');
      assert.equal(ack?.url, `${base}/v1/notifications/acknowledge`);
      assert.deepEqual(
        owners.actions.find((a) => a.label === 'Open'),
        { action: 'view', label: 'Open', url: owners.click, id: 'act1', method: undefined },
      );
      const [crews] = on(s.crewTopic);
      assert.ok(crews, 'the crew member’s open topic got it too');
      assert.equal(crews.headers.authorization, undefined, 'no token saved, none sent');

      const log = (await s.owner.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      const sent = log.find((n) => n.channel === 'ntfy');
      assert.equal(sent?.status, 'sent');
      assert.match(String(sent?.answer), /^HTTP 200 \(message msg\d+\)$/);
      assert.ok(!JSON.stringify(log).includes(TOKEN));

      // The owner presses Acknowledge in the ntfy app: a real POST to the app.
      const pressed = await ntfy.press(owners, 'Acknowledge');
      assert.equal(pressed.status, 200, pressed.body);
      const after = JSON.parse(pressed.body) as { status: string; acknowledged_by: string | null };
      assert.equal(after.status, 'acknowledged');
      assert.equal(after.acknowledged_by, s.owner.session.person.id);
      // Single-use: the crew member's button is another token, this one is spent.
      assert.equal((await ntfy.press(owners, 'Acknowledge')).status, 403);
    });

    test('a wrong token: 401 from ntfy is final, and says to check the token', async () => {
      const s = await farmWithTopics(t());
      ntfy.protect(s.ownerTopic, 'tk_anotherTokenNowRequired00000');
      await s.owner.request('POST', '/v1/me/notifications/test', { body: { channel: 'ntfy' } });
      await turn(Date.now());
      const [row] = (await s.owner.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      assert.equal(row?.status, 'failed');
      assert.match(String(row?.answer), /^HTTP 401: unauthorized \(check the access token/);
      // A 503 is retried.
      ntfy.answer(s.crewTopic, 503);
      await s.crew.request('POST', '/v1/me/notifications/test', { body: { channel: 'ntfy' } });
      await turn(Date.now());
      const [retried] = (await s.crew.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      assert.equal(retried?.status, 'pending');
      assert.match(String(retried?.answer), /^HTTP 503/);
    });

    test('quiet hours hold a watch notice on ntfy until they end; an urgent one breaks through', async () => {
      const s = await farmWithTopics(t());
      const now = Date.now();
      await quietAroundNow(s.owner, s.farm.id);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
      await turn(now);
      assert.equal(on(s.ownerTopic).length, 0, 'the watch notice is held');
      // A name beyond ASCII travels in the title header as an RFC 2047 word, which ntfy decodes.
      const barn2 = await make.device(t(), s.account.live_key, s.farm.id, {
        type: 'house',
        name: 'Scheune 2 – Süd',
      });
      await make.report(t(), barn2.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(now + 1000);
      assert.deepEqual(
        on(s.ownerTopic).map((m) => [m.title, m.priority]),
        [['Urgent: High ammonia in Scheune 2 – Süd', 5]],
      );
      const end = Date.UTC(
        new Date(now).getUTCFullYear(),
        new Date(now).getUTCMonth(),
        new Date(now).getUTCDate(),
        new Date(now).getUTCHours() + 2,
      );
      await turn(end + 1000);
      const released = on(s.ownerTopic).at(-1);
      assert.equal(released?.title, 'Watch: High ammonia in Barn 1');
      assert.equal(released?.priority, 4);
      assert.deepEqual(released?.tags, ['warning']);
    });

    test('escalation on ntfy: a step that names ntfy publishes again; acknowledging from it stops the chain', async () => {
      const s = await farmWithTopics(t());
      const chain = await t().request('PATCH', `/v1/farms/${s.farm.id}`, {
        key: s.account.live_key,
        body: {
          settings: {
            escalation: {
              after_minutes: 5,
              steps: [
                { notify: 'crew', channels: ['ntfy'] },
                { notify: 'owners', channels: ['ntfy'] },
              ],
            },
          },
        },
      });
      assert.equal(chain.status, 200, JSON.stringify(chain.body));
      // The crew member takes nothing on ntfy on this farm: only the escalation reaches them there.
      const quiet = await s.crew.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: s.farm.id, channels: { ntfy: [] } },
      });
      assert.equal(quiet.status, 200);
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 28 }] });
      await turn(start);
      assert.equal(on(s.crewTopic).length, 0);
      const ownerFirst = on(s.ownerTopic).length;
      assert.equal(ownerFirst, 1);
      await turn(start + 6 * MINUTE_MS);
      const step1 = on(s.crewTopic);
      assert.equal(step1.length, 1);
      assert.equal(step1[0]?.title, 'Urgent: High ammonia in Barn 1 (not acknowledged yet)');
      assert.equal(step1[0]?.priority, 5);
      const pressed = await ntfy.press(step1[0] as (typeof step1)[number], 'Acknowledge');
      assert.equal(pressed.status, 200, pressed.body);
      assert.equal(
        (JSON.parse(pressed.body) as { acknowledged_by: string }).acknowledged_by,
        s.crew.session.person.id,
      );
      // Step 2 (the owners) never comes.
      await turn(start + 12 * MINUTE_MS);
      assert.equal(on(s.ownerTopic).length, ownerFirst);
    });

    test('a topic is saved without a farm (it holds for every farm), even when the sample farm is the only one; saving it alone writes no farm settings', async () => {
      const account = await t().account();
      const owner = await signedInPerson(t(), account, 'owner');
      const url = `${ntfy.url}/${newTopic()}`;
      // Only the sample farm: no farm_id at all.
      const saved = await owner.request<Patched>('PATCH', '/v1/me/notification-settings', {
        body: { ntfy: { url, token: TOKEN } },
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.deepEqual(saved.body, { ntfy: { url, token: `…${TOKEN.slice(-4)}` } });
      // The sample farm is named as such, not "No farm with id".
      const sample = await owner.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: account.sample_farm_id, ntfy: { url } },
      });
      const refused = expectError(sample, 400, 'invalid_request');
      assert.equal(refused.param, 'farm_id');
      assert.match(refused.message, /sample farm sends no notifications/);
      assert.doesNotMatch(refused.message, /No farm with id/);
      // A farm's settings without farm_id: 400 naming farm_id and the members.
      const perFarm = await owner.request('PATCH', '/v1/me/notification-settings', {
        body: { ntfy: { url }, channels: { ntfy: ['urgent'] } },
      });
      const missing = expectError(perFarm, 400, 'invalid_request');
      assert.equal(missing.param, 'farm_id');
      assert.match(missing.message, /farm_id is required with channels/);
      expectError(
        await owner.request('PATCH', '/v1/me/notification-settings', { body: {} }),
        400,
        'invalid_request',
      );
      // The topic alone with a farm (what the console sends): the farm's settings stay the role's defaults.
      const farm = await make.farm(t(), account.live_key, { name: 'Uncustomized' });
      const withFarm = await owner.request<Patched & { customized: boolean }>(
        'PATCH',
        '/v1/me/notification-settings',
        { body: { farm_id: farm.id, ntfy: { url } } },
      );
      assert.equal(withFarm.status, 200, JSON.stringify(withFarm.body));
      assert.equal(withFarm.body.customized, false);
      const got = await owner.request<{ farms: { farm_id: string; customized: boolean }[] }>(
        'GET',
        '/v1/me/notification-settings',
      );
      assert.equal(got.body.farms.find((f) => f.farm_id === farm.id)?.customized, false);
    });

    test('a short token is never shown, not even in part: the last four only from 12 characters', async () => {
      const account = await t().sharedAccount();
      const farm = await make.farm(t(), account.live_key, { name: 'Short tokens' });
      const owner = await signedInPerson(t(), account, 'owner');
      const url = `${ntfy.url}/${newTopic()}`;
      for (const [token, shown] of [
        ['ab', '…'],
        ['tk_abcdefgh', '…'],
        ['tk_abcdefghi', '…fghi'],
      ] as const) {
        const res = await saveTopic(owner, farm.id, { url, token });
        assert.equal(res.body.ntfy?.token, shown, token);
      }
    });

    test('a held watch notice is not sent once the same alert’s urgent notice reached the person on that channel', async () => {
      const s = await farmWithTopics(t());
      const now = Date.now();
      await quietAroundNow(s.owner, s.farm.id);
      // The same house: watch (held), then urgent (the same alert, sent at once).
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
      await turn(now);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(now + 1000);
      assert.deepEqual(
        on(s.ownerTopic).map((m) => m.title),
        ['Urgent: High ammonia in Barn 1'],
      );
      await turn(now + 3 * HOUR_MS);
      assert.deepEqual(
        on(s.ownerTopic).map((m) => m.title),
        ['Urgent: High ammonia in Barn 1'],
        'the older, milder notice never comes last',
      );
      const log = (await s.owner.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      const watch = log.find((n) => n.channel === 'ntfy' && n.title.startsWith('Watch'));
      assert.equal(watch?.status, 'skipped');
      assert.equal(watch?.answer, 'not sent: a later notice about this alert reached them first');
    });

    test('with urgent held by quiet hours, an escalation step that went out first makes the held first notice skipped', async () => {
      const s = await farmWithTopics(t());
      const chain = await t().request('PATCH', `/v1/farms/${s.farm.id}`, {
        key: s.account.live_key,
        body: {
          settings: { escalation: { after_minutes: 5, steps: [{ notify: 'owners', channels: ['ntfy'] }] } },
        },
      });
      assert.equal(chain.status, 200, JSON.stringify(chain.body));
      const now = Date.now();
      await quietAroundNow(s.owner, s.farm.id, { urgent_breaks_through: false });
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 27 }] });
      await turn(now);
      assert.equal(on(s.ownerTopic).length, 0, 'the urgent notice is held');
      await turn(now + 6 * MINUTE_MS);
      assert.deepEqual(
        on(s.ownerTopic).map((m) => m.title),
        ['Urgent: High ammonia in Barn 1 (not acknowledged yet)'],
      );
      await turn(now + 3 * HOUR_MS);
      assert.equal(on(s.ownerTopic).length, 1, 'the held first notice does not follow its reminder');
      const log = (await s.owner.request<{ data: LogRow[] }>('GET', '/v1/me/notifications')).body.data;
      const first = log.find((n) => n.channel === 'ntfy' && n.step === 0);
      assert.equal(first?.status, 'skipped');
      assert.match(String(first?.answer), /a later notice about this alert reached them first/);
    });

    test('a 429 with Retry-After: the next attempt no sooner than it asks (capped at 6 hours), and the log says so', async () => {
      const account = await t().sharedAccount();
      const farm = await make.farm(t(), account.live_key, { name: 'Rate limited' });
      const person = await signedInPerson(t(), account, 'crew');
      for (const [retryAfter, wait, said] of [
        [
          '3600',
          HOUR_MS,
          /^HTTP 429: limit reached: too many requests \(Retry-After: 60 min; not tried again sooner\)$/,
        ],
        ['86400', 6 * HOUR_MS, /\(Retry-After: 24 h; capped at 6 h; not tried again sooner\)$/],
        [new Date(Date.now() + 2 * HOUR_MS).toUTCString(), 2 * HOUR_MS, /Retry-After: 120 min/],
      ] as const) {
        const server = await rateLimited(retryAfter);
        try {
          const saved = await saveTopic(person, farm.id, { url: `${server.url}/${newTopic()}` });
          assert.equal(saved.status, 200, JSON.stringify(saved.body));
          const test = await person.request<{ data: { id: string }[] }>('POST', '/v1/me/notifications/test', {
            body: { channel: 'ntfy' },
          });
          assert.equal(test.status, 202);
          const now = Date.now();
          await turn(now);
          assert.equal(server.hits(), 1);
          const log = (
            await person.request<{ data: (LogRow & { id: string })[] }>('GET', '/v1/me/notifications')
          ).body.data;
          const row = log.find((n) => n.id === test.body.data[0]?.id);
          assert.equal(row?.status, 'pending');
          assert.match(String(row?.answer), said);
          const next = Date.parse(String(row?.next_attempt_at));
          // Not the schedule's 10 s: what the server asked (a date to the second), up to the cap.
          assert.ok(Math.abs(next - (now + wait)) <= 2000, `${row?.next_attempt_at} vs ${wait}`);
          await turn(now + 5 * MINUTE_MS);
          assert.equal(server.hits(), 1, 'not tried again before then');
        } finally {
          server.close();
        }
      }
    });

    test('settings.escalation takes ntfy as a channel and names the channels when one is unknown', async () => {
      const account = await t().sharedAccount();
      const farm = await make.farm(t(), account.live_key, { name: 'Chain check' });
      const res = await t().request('PATCH', `/v1/farms/${farm.id}`, {
        key: account.live_key,
        body: { settings: { escalation: { steps: [{ notify: 'crew', channels: ['sms'] }] } } },
      });
      const body = expectError(res, 400, 'invalid_request');
      assert.equal(body.param, 'settings.escalation.steps[0].channels');
      assert.match(body.message, /push, email, ntfy/);
    });
  },
  { webhookAllowPrivate: true },
);
