/**
 * ntfy end to end on both engines: a person saves their topic (and a token) with PATCH
 * /v1/me/notification-settings; the worker's turn publishes to a real local server speaking ntfy's publish
 * API (test/ntfy-server.ts); pressing the message's Acknowledge button, as the ntfy app does, is a real HTTP
 * request to the app listening on a port, and acknowledges the alert for that person.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { type NtfyServer, startNtfyServer } from '../../../test/ntfy-server.ts';
import { asSession, type SignedIn, signedInPerson } from '../../../test/people.ts';
import type { Config } from '../../config.ts';
import { MINUTE_MS } from '../../lib/time.ts';
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
      const hour = new Date(now).getUTCHours();
      const clock = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
      const q = await s.owner.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: s.farm.id, quiet_hours: { start: clock(hour - 1), end: clock(hour + 2) } },
      });
      assert.equal(q.status, 200);
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
        hour + 2,
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
