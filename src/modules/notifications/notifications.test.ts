/**
 * Notifications on both engines, against real parts: a real web-push send to a local https push service
 * that decrypts the RFC 8291 payload (test/push-service.ts), email to a local SMTP server (smtp-server),
 * the worker's turn called with an injected clock.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { asSession, type SignedIn, signedInPerson } from '../../../test/people.ts';
import { type PushService, startPushService } from '../../../test/push-service.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../../test/smtp-receiver.ts';
import type { Config } from '../../config.ts';
import { MINUTE_MS } from '../../lib/time.ts';
import { notificationTurn } from '../../workers/notification-delivery.ts';

let push: PushService;
let smtp: SmtpReceiver;
before(async () => {
  push = await startPushService();
  smtp = await startSmtpReceiver();
});
after(async () => {
  await push.close();
  await smtp.close();
});

type Row = {
  id: string;
  next_attempt_at: string | null;
  status: string;
  channel: string;
  kind: string;
  step: number;
  answer: string | null;
  title: string;
};
interface Log {
  data: Row[];
  has_more: boolean;
  next_before: string | null;
}

/** The worker's turn on this app's database at `now`, with email through the local SMTP server. */
function turn(t: TestApp, now: number, overrides: Partial<Config> = {}) {
  return notificationTurn(
    {
      database: t.database,
      config: { ...t.config, smtpUrl: smtp.url, emailFrom: 'Farmstead <alerts@farm.test>', ...overrides },
    },
    now,
    { briefs: false },
  );
}

async function subscribe(person: SignedIn) {
  const browser = push.subscription();
  const res = await person.request<{ id: string }>('POST', '/v1/me/push-subscriptions', {
    body: { ...browser.json, user_agent: 'Test browser' },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { ...browser, subscriptionId: res.body.id };
}

/** An account with a farm, a house, an owner and a crew member, each with a browser subscribed. */
async function farmWithPeople(t: TestApp) {
  const account = await t.account();
  const farm = await make.farm(t, account.live_key, { name: 'Hillside', timezone: 'UTC' });
  const house = await make.device(t, account.live_key, farm.id, { type: 'house', name: 'House 2' });
  const owner = await signedInPerson(t, account, 'owner');
  const crew = await signedInPerson(t, account, 'crew');
  return {
    account,
    farm,
    house,
    owner,
    crew,
    ownerBrowser: await subscribe(owner),
    crewBrowser: await subscribe(crew),
  };
}

async function alertsOf(t: TestApp, key: string, farmId: string) {
  const res = await t.request<{ data: { id: string; status: string; severity: string; title: string }[] }>(
    'GET',
    `/v1/farms/${farmId}/alerts`,
    { key },
  );
  return res.body.data;
}

function received(browserId: string) {
  return push.received.filter((r) => r.subscription === browserId);
}

forEachEngine(
  'notifications',
  (t) => {
    test('the VAPID public key needs no sign-in and stays the same', async () => {
      const a = await t().request<{ public_key: string }>('GET', '/v1/notifications/vapid-public-key');
      assert.equal(a.status, 200);
      assert.match(a.body.public_key, /^[A-Za-z0-9_-]{87}$/);
      const b = await t().request<{ public_key: string }>('GET', '/v1/notifications/vapid-public-key');
      assert.equal(b.body.public_key, a.body.public_key);
    });

    test('an API key is refused: notifications belong to people', async () => {
      const account = await t().sharedAccount();
      for (const [method, url] of [
        ['GET', '/v1/me/notification-settings'],
        ['GET', '/v1/me/push-subscriptions'],
        ['GET', '/v1/me/notifications'],
      ] as const) {
        const res = await t().request(method, url, { key: account.live_key });
        const body = expectError(res, 403, 'forbidden');
        assert.match(body.message, /belong to people/);
      }
    });

    test('defaults with no set-up: owners urgent by push and email, watch by push; crew urgent by push', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Defaults' });
      const owner = await signedInPerson(t(), account, 'owner');
      const crew = await signedInPerson(t(), account, 'crew');
      type S = {
        email: { available: boolean };
        farms: {
          farm_id: string;
          channels: { push: string[]; email: string[]; ntfy: string[] };
          quiet_hours: unknown;
          brief_email_at: string | null;
          customized: boolean;
        }[];
      };
      const o = (await owner.request<S>('GET', '/v1/me/notification-settings')).body;
      const mine = o.farms.find((f) => f.farm_id === farm.id);
      // ntfy carries what push does, once a topic is saved.
      assert.deepEqual(mine?.channels, {
        push: ['urgent', 'watch'],
        email: ['urgent'],
        ntfy: ['urgent', 'watch'],
      });
      assert.equal(mine?.brief_email_at, '06:00');
      assert.equal(mine?.customized, false);
      // The test app has no SMTP: email is not offered, and says why.
      assert.equal(o.email.available, false);
      const c = (await crew.request<S>('GET', '/v1/me/notification-settings')).body;
      assert.deepEqual(c.farms.find((f) => f.farm_id === farm.id)?.channels, {
        push: ['urgent'],
        email: [],
        ntfy: ['urgent'],
      });
      // The sample farm is not listed: its alerts are simulated.
      assert.equal(c.farms.length, 1);
    });

    test('PATCH changes one farm; bad input names the member; another account’s farm is not found', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Patch' });
      const crew = await signedInPerson(t(), account, 'crew');
      const ok = await crew.request<{
        channels: { push: string[] };
        quiet_hours: { urgent_breaks_through: boolean };
      }>('PATCH', '/v1/me/notification-settings', {
        body: {
          farm_id: farm.id,
          channels: { push: ['urgent', 'watch'] },
          quiet_hours: { start: '22:00', end: '06:00' },
        },
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.channels.push, ['urgent', 'watch']);
      assert.equal(ok.body.quiet_hours.urgent_breaks_through, true);
      const bad = await crew.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: farm.id, quiet_hours: { start: '25:00', end: '06:00' } },
      });
      assert.match(expectError(bad, 400, 'invalid_request').message, /quiet_hours/);
      const other = await t().account();
      const foreign = await make.farm(t(), other.live_key, { name: 'Not yours' });
      expectError(
        await crew.request('PATCH', '/v1/me/notification-settings', { body: { farm_id: foreign.id } }),
        404,
        'not_found',
      );
    });

    test('a push endpoint on a private address is refused (the webhooks’ SSRF guard); http is refused', async () => {
      const account = await t().sharedAccount();
      const signed = await signedInPerson(t(), account, 'crew');
      // This suite's app allows private addresses (its push service is on 127.0.0.1); this one does not.
      const strict = await openTestAppOn(t(), { webhookAllowPrivate: false });
      const person = asSession(strict, signed.cookie, signed.session);
      const local = await person.request('POST', '/v1/me/push-subscriptions', {
        body: { ...push.subscription().json },
      });
      assert.match(expectError(local, 400, 'invalid_request').message, /loopback/);
      const res = await person.request('POST', '/v1/me/push-subscriptions', {
        body: { endpoint: 'https://169.254.169.254/push/x', keys: { p256dh: 'BAAA', auth: 'AAAA' } },
      });
      const body = expectError(res, 400, 'invalid_request');
      assert.equal(body.param, 'endpoint');
      assert.match(body.message, /link-local/);
      const plain = await person.request('POST', '/v1/me/push-subscriptions', {
        body: { endpoint: 'http://push.example.com/x', keys: { p256dh: 'BAAA', auth: 'AAAA' } },
      });
      assert.match(expectError(plain, 400, 'invalid_request').message, /https/);
      const keys = await signed.request('POST', '/v1/me/push-subscriptions', {
        body: { endpoint: 'https://push.example.com/x', keys: { p256dh: 'BAAA', auth: 'AAAA' } },
      });
      assert.equal(expectError(keys, 400, 'invalid_request').param, 'keys.p256dh');
      await strict.close();
    });

    test('an urgent alert reaches each person’s browser: real web push, decrypted, urgent; owner by email too; acknowledge with the token', async () => {
      const s = await farmWithPeople(t());
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      const [alert] = await alertsOf(t(), s.account.live_key, s.farm.id);
      assert.ok(alert);
      const before = smtp.received.length;
      const result = await turn(t(), start);
      assert.equal(result.sent, 3, JSON.stringify(result));

      const [ownerPush] = received(s.ownerBrowser.id);
      assert.ok(ownerPush, 'the owner’s browser got a push');
      assert.equal(ownerPush.headers.urgency, 'high');
      assert.match(String(ownerPush.headers.authorization), /^vapid t=/);
      const payload = ownerPush.payload;
      assert.equal(payload.title, 'Urgent: High ammonia in House 2');
      assert.match(String(payload.body), /Ammonia 26 ppm in House 2.*Hillside/);
      assert.equal(payload.farm, 'Hillside');
      assert.equal(payload.alert_id, alert.id);
      assert.match(String(payload.url), new RegExp(`/alerts\\?alert=${alert.id}$`));
      assert.ok(typeof payload.at === 'string' && typeof payload.ack_token === 'string');
      assert.equal(received(s.crewBrowser.id).length, 1);

      const mail = smtp.received.slice(before).find((m) => m.to.includes(s.owner.session.person.email));
      assert.ok(mail, 'the owner got an email');
      assert.match(mail.raw, /Subject: Urgent: High ammonia in House 2/);
      assert.match(mail.raw, /Open the alert: http/);
      assert.match(mail.raw, /Acknowledge it: http[^\s]*\/ack\//);
      assert.ok(!smtp.received.slice(before).some((m) => m.to.includes(s.crew.session.person.email)));

      // Nothing more to send: exactly one per person, alert, channel and step.
      assert.equal((await turn(t(), start + 1000)).sent, 0);

      // The delivery log, paged.
      const log = await s.owner.request<Log>('GET', '/v1/me/notifications?limit=1');
      assert.equal(log.body.data.length, 1);
      assert.equal(log.body.has_more, true);
      assert.equal(log.body.data[0]?.status, 'sent');

      // The crew member acknowledges from the push; the token is single-use.
      const token = String(received(s.crewBrowser.id)[0]?.payload.ack_token);
      const ack = await t().request<{ status: string; acknowledged_by: string | null }>(
        'POST',
        '/v1/notifications/acknowledge',
        { body: { token } },
      );
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.status, 'acknowledged');
      assert.equal(ack.body.acknowledged_by, s.crew.session.person.id, 'the person whose token it was');
      expectError(
        await t().request('POST', '/v1/notifications/acknowledge', { body: { token } }),
        403,
        'forbidden',
      );
      expectError(
        await t().request('POST', '/v1/notifications/acknowledge', { body: { token: 'not-a-token' } }),
        403,
        'forbidden',
      );
      // The GET of an emailed link changes nothing.
      const described = await t().request<{ usable: boolean }>(
        'GET',
        `/v1/notifications/acknowledge/${String(payload.ack_token)}`,
      );
      assert.equal(described.body.usable, true);

      // Resolving sends a "resolved" notice to whoever was told, on the same channels.
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 10 }] });
      await turn(t(), start + 2000);
      assert.equal(received(s.ownerBrowser.id).at(-1)?.payload.title, 'Resolved: High ammonia in House 2');
      assert.equal(received(s.crewBrowser.id).at(-1)?.payload.kind, 'resolved');
    });

    test('an expired token, and a token of a person removed, are refused', async () => {
      const s = await farmWithPeople(t());
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 30 }] });
      await turn(t(), start);
      const ownerToken = String(received(s.ownerBrowser.id)[0]?.payload.ack_token);
      const crewToken = String(received(s.crewBrowser.id)[0]?.payload.ack_token);
      // Expired: the server's clock is past 24 hours (the token endpoint reads the app's clock, Date.now).
      const { acknowledgeWithToken } = await import('./ack-token.ts');
      await assert.rejects(
        acknowledgeWithToken(t().database.db, ownerToken, start + 25 * 3_600_000),
        /used, expired or unknown/,
      );
      // Foreign: the crew member was removed from the account.
      const del = await t().request('DELETE', `/v1/people/${s.crew.session.person.id}`, {
        key: s.account.live_key,
      });
      assert.ok(del.status < 300, JSON.stringify(del.body));
      expectError(
        await t().request('POST', '/v1/notifications/acknowledge', { body: { token: crewToken } }),
        403,
        'forbidden',
      );
      const [alert] = await alertsOf(t(), s.account.live_key, s.farm.id);
      assert.equal(alert?.status, 'open');
    });

    test('acknowledged from the email’s acknowledge page: the alert names the person whose token it was; a key names no one', async () => {
      const s = await farmWithPeople(t());
      const start = Date.now();
      const before = smtp.received.length;
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 29 }] });
      await turn(t(), start);
      const mail = smtp.received.slice(before).find((m) => m.to.includes(s.owner.session.person.email));
      assert.ok(mail, 'the owner got an email');
      const token = /\/ack\/([A-Za-z0-9_-]+)/.exec(mail.raw.replace(/=\r?\n/g, ''))?.[1];
      assert.ok(token, 'the email carries the acknowledge page’s link');
      // The page (web/pages/ack.ts) shows what the link would do, then posts the token.
      const shown = await t().request<{ usable: boolean }>('GET', `/v1/notifications/acknowledge/${token}`);
      assert.equal(shown.body.usable, true);
      const ack = await t().request<{ id: string; acknowledged_by: string | null }>(
        'POST',
        '/v1/notifications/acknowledge',
        { body: { token } },
      );
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.acknowledged_by, s.owner.session.person.id);
      const got = await t().request<{ acknowledged_by: string | null }>('GET', `/v1/alerts/${ack.body.id}`, {
        key: s.account.live_key,
      });
      assert.equal(got.body.acknowledged_by, s.owner.session.person.id, 'stored, not only answered');
      // An API key is not a person: acknowledged_by stays null.
      const house3 = await make.device(t(), s.account.live_key, s.farm.id, {
        type: 'house',
        name: 'House 3',
      });
      await make.report(t(), house3.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 29 }] });
      const open = (await alertsOf(t(), s.account.live_key, s.farm.id)).find((a) => a.status === 'open');
      assert.ok(open);
      const byKey = await t().request<{ acknowledged_by: string | null }>(
        'POST',
        `/v1/alerts/${open.id}/acknowledge`,
        { key: s.account.live_key },
      );
      assert.equal(byKey.status, 200);
      assert.equal(byKey.body.acknowledged_by, null);
    });

    test('escalation: not acknowledged after 15 minutes, the next step is notified; acknowledging stops the chain', async () => {
      const s = await farmWithPeople(t());
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 27 }] });
      await turn(t(), start);
      assert.equal(received(s.crewBrowser.id).length, 1);
      // 14 minutes: nothing yet.
      await turn(t(), start + 14 * MINUTE_MS);
      assert.equal(received(s.crewBrowser.id).length, 1);
      // 16 minutes: step 1 (all crew, by push).
      const step1 = await turn(t(), start + 16 * MINUTE_MS);
      // (Other tests' open alerts in this app escalate too.)
      assert.ok(step1.escalated >= 1);
      const again = received(s.crewBrowser.id);
      assert.equal(again.length, 2);
      assert.match(String(again[1]?.payload.title), /not acknowledged yet/);
      // Acknowledged: step 2 (owners) never comes.
      const [alert] = await alertsOf(t(), s.account.live_key, s.farm.id);
      const ack = await s.crew.request<{ acknowledged_by: string | null }>(
        'POST',
        `/v1/alerts/${alert?.id}/acknowledge`,
      );
      assert.equal(ack.status, 200, JSON.stringify(ack.body));
      assert.equal(ack.body.acknowledged_by, s.crew.session.person.id, 'the console names who acknowledged');
      const ownerBefore = received(s.ownerBrowser.id).length;
      await turn(t(), start + 40 * MINUTE_MS);
      assert.equal(received(s.ownerBrowser.id).length, ownerBefore);
    });

    test('a watch alert that crosses the urgent line is told again as urgent, and escalates', async () => {
      const s = await farmWithPeople(t());
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
      await turn(t(), start);
      // Watch: the owner by push (the crew member takes urgent only).
      assert.deepEqual(
        received(s.ownerBrowser.id).map((r) => r.payload.title),
        ['Watch: High ammonia in House 2'],
      );
      assert.equal(received(s.crewBrowser.id).length, 0);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), start + 1000);
      assert.equal(received(s.ownerBrowser.id).at(-1)?.payload.title, 'Urgent: High ammonia in House 2');
      assert.equal(received(s.ownerBrowser.id).at(-1)?.headers.urgency, 'high');
      assert.equal(received(s.crewBrowser.id).length, 1);
      // The chain runs from the moment it became urgent.
      await turn(t(), start + 16 * MINUTE_MS);
      assert.equal(received(s.crewBrowser.id).length, 2);
    });

    test('settings.escalation is validated, naming the member and the person', async () => {
      const s = await farmWithPeople(t());
      const patch = (escalation: unknown) =>
        t().request('PATCH', `/v1/farms/${s.farm.id}`, {
          key: s.account.live_key,
          body: { settings: { escalation } },
        });
      const bad = expectError(await patch({ after_minutes: 0 }), 400, 'invalid_request');
      assert.equal(bad.param, 'settings.escalation.after_minutes');
      const who = expectError(
        await patch({
          steps: [{ notify: 'crew' }, { notify: 'per_00000000000000000000000000', channels: ['email'] }],
        }),
        400,
        'invalid_request',
      );
      assert.equal(who.param, 'settings.escalation.steps[1].notify');
      assert.match(who.message, /not one of this account's people/);
      const ok = await patch({
        after_minutes: 5,
        steps: [{ notify: s.owner.session.person.id, channels: ['push'] }],
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      // 5 minutes, the owner alone.
      const start = Date.now();
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 28 }] });
      await turn(t(), start);
      const crewBefore = received(s.crewBrowser.id).length;
      assert.ok((await turn(t(), start + 6 * MINUTE_MS)).escalated >= 1);
      assert.equal(received(s.ownerBrowser.id).length, 2);
      assert.equal(received(s.crewBrowser.id).length, crewBefore);
    });

    test('quiet hours hold a watch notice until they end; urgent breaks through', async () => {
      const s = await farmWithPeople(t());
      // Quiet hours around the present hour (the farm is on UTC); the owner takes watch by push by default.
      const now = Date.now();
      const hour = new Date(now).getUTCHours();
      const clock = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
      const q = await s.owner.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: s.farm.id, quiet_hours: { start: clock(hour - 1), end: clock(hour + 2) } },
      });
      assert.equal(q.status, 200);
      const crewQuiet = await s.crew.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: s.farm.id, quiet_hours: { start: clock(hour - 1), end: clock(hour + 2) } },
      });
      assert.equal(crewQuiet.status, 200);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
      const [watch] = await alertsOf(t(), s.account.live_key, s.farm.id);
      assert.equal(watch?.severity, 'watch');
      await turn(t(), now);
      const held = (await s.owner.request<Log>('GET', '/v1/me/notifications')).body.data.find(
        (n) => n.kind === 'alert',
      );
      assert.ok(held);
      assert.equal(held.status, 'pending');
      assert.equal(received(s.ownerBrowser.id).length, 0);
      const end = Date.UTC(
        new Date(now).getUTCFullYear(),
        new Date(now).getUTCMonth(),
        new Date(now).getUTCDate(),
        hour + 2,
      );
      assert.equal(Date.parse(String((held as unknown as { next_attempt_at: string }).next_attempt_at)), end);
      // Urgent breaks through (the crew's quiet hours too): another house.
      const house3 = await make.device(t(), s.account.live_key, s.farm.id, {
        type: 'house',
        name: 'House 3',
      });
      await make.report(t(), house3.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), now + 1000);
      assert.equal(received(s.crewBrowser.id).length, 1);
      assert.deepEqual(
        received(s.ownerBrowser.id).map((r) => r.payload.title),
        ['Urgent: High ammonia in House 3'],
      );
      // At the end of quiet hours the held watch notice goes out (its alert is still open).
      await turn(t(), end + 1000);
      assert.equal(received(s.ownerBrowser.id).at(-1)?.payload.title, 'Watch: High ammonia in House 2');
    });

    test('changing or turning off quiet hours moves the notices they hold to the new end, or to now', async () => {
      const s = await farmWithPeople(t());
      const now = Date.now();
      const hour = new Date(now).getUTCHours();
      const clock = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
      const endAt = (h: number) =>
        Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate(), h);
      const quiet = (quiet_hours: unknown) =>
        s.owner.request('PATCH', '/v1/me/notification-settings', {
          body: { farm_id: s.farm.id, quiet_hours },
        });
      assert.equal((await quiet({ start: clock(hour - 1), end: clock(hour + 3) })).status, 200);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
      await turn(t(), now);
      const held = async () =>
        (await s.owner.request<Log>('GET', '/v1/me/notifications')).body.data.find((n) => n.kind === 'alert');
      assert.equal(Date.parse(String((await held())?.next_attempt_at)), endAt(hour + 3));
      // An earlier end: the held notice follows it.
      assert.equal((await quiet({ start: clock(hour - 1), end: clock(hour + 1) })).status, 200);
      assert.equal(Date.parse(String((await held())?.next_attempt_at)), endAt(hour + 1));
      // Off: due at once, and the next turn sends it.
      const before = Date.now();
      assert.equal((await quiet(null)).status, 200);
      const due = Date.parse(String((await held())?.next_attempt_at));
      assert.ok(due >= before && due <= Date.now(), `${due} is now`);
      await turn(t(), Date.now() + 1000);
      assert.deepEqual(
        received(s.ownerBrowser.id).map((r) => r.payload.title),
        ['Watch: High ammonia in House 2'],
      );
      assert.equal((await held())?.status, 'sent');
    });

    test('muted_rules must name rules of the farm: built-in, device alarms or its own; a typo is a 400 naming it', async () => {
      const s = await farmWithPeople(t());
      const rule = await t().request('POST', `/v1/farms/${s.farm.id}/rules`, {
        key: s.account.live_key,
        body: { name: 'silage-heat', metric: 'climate.temp_c', direction: 'above', watch: 30, clear: 28 },
      });
      assert.equal(rule.status, 201, JSON.stringify(rule.body));
      const mute = (muted_rules: string[]) =>
        s.owner.request<{ muted_rules: string[] }>('PATCH', '/v1/me/notification-settings', {
          body: { farm_id: s.farm.id, muted_rules },
        });
      // What the console's field sends: names split on commas.
      const ok = await mute(['house.ammonia', 'predator.detected', 'water.leak', 'silage-heat']);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.muted_rules, [
        'house.ammonia',
        'predator.detected',
        'water.leak',
        'silage-heat',
      ]);
      const typo = expectError(
        await mute(['water.leak', 'house.amonia', 'Device Battery']),
        400,
        'invalid_request',
      );
      assert.equal(typo.param, 'muted_rules[1]');
      assert.match(typo.message, /"house\.amonia" is not one of this farm's rules/);
      assert.match(typo.message, /house\.ammonia/, 'names valid ones, its family first');
      // Refused: nothing changed.
      const got = await s.owner.request<{ farms: { farm_id: string; muted_rules: string[] }[] }>(
        'GET',
        '/v1/me/notification-settings',
      );
      assert.equal(got.body.farms.find((f) => f.farm_id === s.farm.id)?.muted_rules.length, 4);
      // Another farm's own rule is not this farm's.
      const other = await make.farm(t(), s.account.live_key, { name: 'Other farm' });
      const foreign = await s.owner.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: other.id, muted_rules: ['silage-heat'] },
      });
      assert.equal(expectError(foreign, 400, 'invalid_request').param, 'muted_rules[0]');
    });

    test('the acknowledge endpoint answers any origin’s preflight and POST (the token is its only credential), with or without FARMSTEAD_CORS_ORIGINS, and opens nothing else', async () => {
      const s = await farmWithPeople(t());
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), Date.now());
      const tokens = received(s.crewBrowser.id)
        .concat(received(s.ownerBrowser.id))
        .map((r) => String(r.payload.ack_token));
      const origin = 'https://ntfy.example.com';
      const allowListed = await openTestAppOn(t(), { corsOrigins: ['https://farm.example'] });
      try {
        for (const [app, token] of [
          [t(), tokens[0]],
          [allowListed, tokens[1]],
        ] as const) {
          const preflight = await app.request('OPTIONS', '/v1/notifications/acknowledge', {
            headers: {
              origin,
              'access-control-request-method': 'POST',
              'access-control-request-headers': 'content-type',
            },
          });
          assert.equal(preflight.status, 204);
          assert.equal(preflight.headers['access-control-allow-origin'], '*');
          assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
          assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/);
          assert.equal(preflight.headers['access-control-allow-credentials'], undefined);
          const ack = await app.request<{ status: string }>('POST', '/v1/notifications/acknowledge', {
            headers: { origin },
            body: { token },
          });
          assert.equal(ack.headers['access-control-allow-origin'], '*');
          assert.ok(ack.status === 200 || ack.status === 409 || ack.status === 403, JSON.stringify(ack.body));
          // An error answer is readable by the page too.
          const refused = await app.request('POST', '/v1/notifications/acknowledge', {
            headers: { origin },
            body: { token: 'not-a-token' },
          });
          assert.equal(refused.status, 403);
          assert.equal(refused.headers['access-control-allow-origin'], '*');
          // Nothing else is opened to that origin.
          const other = await app.request('OPTIONS', '/v1/me/notification-settings', {
            headers: { origin, 'access-control-request-method': 'PATCH' },
          });
          assert.equal(other.headers['access-control-allow-origin'], undefined);
        }
        // The allow-listed origin still gets CORS elsewhere.
        const listed = await allowListed.request('OPTIONS', '/v1/me/notification-settings', {
          headers: { origin: 'https://farm.example', 'access-control-request-method': 'PATCH' },
        });
        assert.equal(listed.headers['access-control-allow-origin'], 'https://farm.example');
      } finally {
        await allowListed.close();
      }
    });

    test('the morning brief by email at the chosen time, only when it needs attention; its headline is the subject', async () => {
      const s = await farmWithPeople(t());
      const quiet = await make.farm(t(), s.account.live_key, { name: 'Quiet farm', timezone: 'UTC' });
      const now = Date.now();
      const at = new Date(now - 60_000).toISOString().slice(11, 16);
      for (const farmId of [s.farm.id, quiet.id]) {
        const res = await s.owner.request('PATCH', '/v1/me/notification-settings', {
          body: { farm_id: farmId, brief_email_at: at },
        });
        assert.equal(res.status, 200);
      }
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), now);
      const before = smtp.received.length;
      const { queueDueBriefs } = await import('./brief-email.ts');
      const { deliverDue } = await import('./delivery.ts');
      const options = { now, publicUrl: t().config.publicUrl, email: true };
      assert.ok((await queueDueBriefs(t().database.db, options)) >= 1);
      // Once a day: a second pass queues nothing for this person.
      await queueDueBriefs(t().database.db, { ...options, now: now + 60_000 });
      await deliverDue(t().database.db, { ...t().config, smtpUrl: smtp.url }, { now: now + 60_000 });
      const mails = smtp.received.slice(before).filter((m) => m.to.includes(s.owner.session.person.email));
      assert.equal(mails.length, 1);
      assert.match(mails[0]?.raw ?? '', /Subject: Hillside: 1 urgent alert: High ammonia in House 2/);
      const log = (await s.owner.request<Log>('GET', '/v1/me/notifications')).body.data.filter(
        (n) => n.kind === 'brief',
      );
      assert.deepEqual(log.map((n) => n.status).sort(), ['sent', 'skipped']);
      assert.match(
        String(log.find((n) => n.status === 'skipped')?.answer),
        /nothing in the brief needed attention/,
      );
    });

    test('history: settled notifications past the retention and expired tokens are pruned, pending ones kept', async () => {
      const s = await farmWithPeople(t());
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), Date.now());
      await s.owner.request('POST', '/v1/me/notifications/test', { body: {} });
      const { pruneNotificationHistory } = await import('./retention.ts');
      const later = Date.now() + 31 * 86_400_000;
      const pruned = await pruneNotificationHistory(t().database.db, later, 30);
      assert.ok(pruned.notifications >= 3 && pruned.tokens >= 2, JSON.stringify(pruned));
      const left = (await s.owner.request<Log>('GET', '/v1/me/notifications')).body.data;
      assert.deepEqual(
        left.map((n) => [n.kind, n.status]),
        [['test', 'pending']],
      );
    });

    test('a 410 from the push service removes the subscription', async () => {
      const s = await farmWithPeople(t());
      push.answer(s.crewBrowser.id, 410);
      await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
      await turn(t(), Date.now());
      const list = await s.crew.request<Log>('GET', '/v1/me/push-subscriptions');
      assert.equal(list.body.data.length, 0);
      const [row] = (await s.crew.request<Log>('GET', '/v1/me/notifications')).body.data;
      assert.equal(row?.status, 'failed');
      assert.match(String(row?.answer), /410/);
    });

    test('a 429 from the push service with Retry-After: tried again no sooner than it asks, and the log says so', async () => {
      const s = await farmWithPeople(t());
      push.answer(s.crewBrowser.id, 429, { 'retry-after': '120' });
      try {
        await make.report(t(), s.house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
        const now = Date.now();
        await turn(t(), now);
        const [row] = (await s.crew.request<Log>('GET', '/v1/me/notifications')).body.data;
        assert.equal(row?.status, 'pending');
        assert.match(String(row?.answer), /HTTP 429 \(Retry-After: 2 min; not tried again sooner\)$/);
        const next = Date.parse(String(row?.next_attempt_at));
        assert.ok(
          Math.abs(next - (now + 120_000)) <= 2000,
          `${row?.next_attempt_at}: not the schedule's 10 s`,
        );
      } finally {
        push.answer(s.crewBrowser.id, 201);
      }
    });

    test('a test notification goes to every channel the person can receive', async () => {
      const s = await farmWithPeople(t());
      const res = await s.owner.request<{ data: Row[] }>('POST', '/v1/me/notifications/test', { body: {} });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      // The test app has no SMTP configured: push only.
      assert.deepEqual(
        res.body.data.map((r) => r.channel),
        ['push'],
      );
      await turn(t(), Date.now(), { smtpUrl: null });
      assert.equal(received(s.ownerBrowser.id).at(-1)?.payload.title, 'Farmstead test notification');
      const removed = await s.owner.request(
        'DELETE',
        `/v1/me/push-subscriptions/${s.ownerBrowser.subscriptionId}`,
      );
      assert.equal(removed.status, 200);
      expectError(
        await s.owner.request('POST', '/v1/me/notifications/test', { body: { channel: 'push' } }),
        409,
        'conflict',
      );
    });
  },
  { webhookAllowPrivate: true },
);
