/**
 * The console as an installable app with notifications, in headless Chromium: the service worker installs
 * at /sw.js; a push delivered to it through the DevTools protocol (ServiceWorker.deliverPushMessage) makes it
 * call showNotification with the alert, its actions and requireInteraction (recorded by wrapping
 * registration.showNotification in the worker: headless Chromium displays nothing); its Acknowledge action
 * acknowledges the alert. The pushed payload is a real one: the server's, sent by web push to a local push
 * service and decrypted there. Plus the manifest and icons, the notification settings on a phone, and the
 * helper that waits for the worker failing, with its reason, on a page that blocks it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issueAckToken } from '../src/modules/notifications/ack-token.ts';
import { notificationTurn } from '../src/workers/notification-delivery.ts';
import { screenshot } from './browser.ts';
import {
  type ConsoleWorld,
  openPage,
  PHONE,
  serviceWorkerReady,
  signedInPage,
  startConsole,
  workerControl,
} from './console-helpers.ts';
import * as make from './factories.ts';
import { waitFor } from './harness.ts';
import { type NtfyServer, startNtfyServer } from './ntfy-server.ts';
import { signedInPerson } from './people.ts';
import { type PushService, startPushService } from './push-service.ts';

let world: ConsoleWorld;
let push: PushService;
let ntfy: NtfyServer;

before(async () => {
  [world, push, ntfy] = await Promise.all([startConsole(), startPushService(), startNtfyServer()]);
});
after(async () => {
  await world?.close();
  await push?.close();
  await ntfy?.close();
});

test('the manifest names the app and its icons, which are PNGs', async () => {
  const manifest = (await (await fetch(`${world.base}/manifest.webmanifest`)).json()) as {
    name: string;
    display: string;
    start_url: string;
    icons: { src: string; sizes: string }[];
  };
  assert.equal(manifest.name, 'Farmstead');
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, '/');
  for (const icon of manifest.icons) {
    const res = await fetch(`${world.base}${icon.src}`);
    assert.equal(res.headers.get('content-type'), 'image/png');
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(bytes.subarray(1, 4).toString('ascii'), 'PNG');
    assert.equal(`${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`, icon.sizes);
  }
  const sw = await fetch(`${world.base}/sw.js`);
  assert.equal(sw.headers.get('cache-control'), 'no-cache');
  const worker = await sw.text();
  assert.match(worker, /^const VERSION = '[0-9a-f]{16}';/);
  // The queue's sending (web/queue-send.ts), for Background Sync with no console open: plain declarations.
  assert.match(worker, /^async function sendQueue\(/m);
  assert.doesNotMatch(worker, /^\s*(export|import)\b/m);
});

test('the service worker installs; a pushed alert is shown with its actions, urgent ones stay; Acknowledge acknowledges it', async () => {
  const account = await world.t.account('Pushy');
  const farm = await make.farm(world.t, account.live_key, { name: 'Hillside', timezone: 'UTC' });
  const house = await make.device(world.t, account.live_key, farm.id, { type: 'house', name: 'House 2' });
  const { page, person, problems } = await signedInPage(world, account, PHONE, 'crew', {
    serviceWorker: true,
  });
  await page.goto(`${world.base}/account`);
  await page.getByRole('heading', { name: 'What you are told, per farm' }).waitFor();
  const scope = await serviceWorkerReady(page);
  assert.equal(scope, `${world.base}/`);
  const worker = await waitFor('the service worker', () => page.context().serviceWorkers()[0]);
  assert.equal(new URL(worker.url()).pathname, '/sw.js');

  // Headless Chromium displays no notification: record what the worker asks for.
  await worker.evaluate(`(() => {
    self.shown = [];
    const registration = self.registration;
    const show = registration.showNotification.bind(registration);
    registration.showNotification = (title, options) => {
      self.shown.push({ title, options });
      return show(title, options).catch(() => undefined);
    };
  })()`);

  // A real payload: the server's push for an urgent alert, decrypted by the local push service.
  const browser = push.subscription();
  const saved = await person.request('POST', '/v1/me/push-subscriptions', { body: browser.json });
  assert.equal(saved.status, 201);
  await make.report(world.t, house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
  await notificationTurn({ database: world.t.database, config: world.t.config }, Date.now(), {
    briefs: false,
  });
  const payload = push.received.find((r) => r.subscription === browser.id)?.payload;
  assert.ok(payload, 'the server pushed the alert');

  const { cdp, registrationId } = await workerControl(world, page);
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: world.base,
    registrationId,
    data: JSON.stringify(payload),
  });
  type Shown = {
    title: string;
    options: {
      body: string;
      requireInteraction: boolean;
      actions: { action: string; title: string }[];
      data: { alert_id: string; ack_token: string };
    };
  };
  const [shown] = await waitFor('showNotification', async () => {
    const calls = await worker.evaluate<Shown[]>('self.shown');
    return calls.length > 0 ? calls : null;
  });
  assert.ok(shown);
  assert.equal(shown.title, 'Urgent: High ammonia in House 2');
  assert.match(shown.options.body, /Ammonia 26 ppm in House 2 .*Hillside/);
  assert.equal(shown.options.requireInteraction, true);
  assert.deepEqual(
    shown.options.actions.map((a) => a.title),
    ['Acknowledge', 'Open'],
  );
  assert.equal(shown.options.data.alert_id, payload.alert_id);

  // The Acknowledge action, as notificationclick runs it.
  await worker.evaluate(`onNotificationAction('acknowledge', self.shown[0].options.data)`);
  const alert = await world.t.request<{ status: string }>('GET', `/v1/alerts/${String(payload.alert_id)}`, {
    key: account.live_key,
  });
  assert.equal(alert.body.status, 'acknowledged');

  // The notification settings on a phone, for people to look at.
  await page.reload();
  await page.getByRole('heading', { name: 'What you are told, per farm' }).waitFor();
  await page.locator('#notifications').scrollIntoViewIfNeeded();
  await page.locator('form.farm-notify').first().waitFor();
  await page.evaluate(`document.querySelector('#notifications').scrollIntoView()`);
  await screenshot(page, 'notification-settings-phone');
  await page.evaluate(`document.querySelector('form.farm-notify').scrollIntoView()`);
  await screenshot(page, 'notification-settings-phone-farm');
  assert.deepEqual(problems, []);
});

test('a test waiting for the service worker of a page that blocks it fails at its limit, saying why', async () => {
  // openPage blocks the worker unless asked (serviceWorker: true); navigator.serviceWorker.ready never settles.
  const { page } = await openPage(world, PHONE);
  await page.goto(`${world.base}/sign-in`);
  await page.locator('main h1').first().waitFor();
  await assert.rejects(
    serviceWorkerReady(page, 500),
    /not active within 0\.5 s: did the test open its page with serviceWorker: true\?/,
  );
  await page.context().close();
});

test('an emailed acknowledge link opens a page that changes nothing until its one button is pressed', async () => {
  const account = await world.t.account('Mailed');
  const farm = await make.farm(world.t, account.live_key, { name: 'Ridge', timezone: 'UTC' });
  const house = await make.device(world.t, account.live_key, farm.id, { type: 'house', name: 'House 2' });
  await make.report(world.t, house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
  const alerts = await world.t.request<{ data: { id: string }[] }>('GET', `/v1/farms/${farm.id}/alerts`, {
    key: account.live_key,
  });
  const alertId = alerts.body.data[0]?.id as string;
  const owner = await signedInPerson(world.t, account, 'owner');
  const token = await issueAckToken(world.t.database.db, owner.session.person.id, alertId, Date.now());
  const statusOf = async () =>
    (await world.t.request<{ status: string }>('GET', `/v1/alerts/${alertId}`, { key: account.live_key }))
      .body.status;
  // No session: a mail scanner or the person's phone, straight from the email.
  const { page, problems } = await openPage(world, PHONE);
  await page.goto(`${world.base}/ack/${token}`);
  await page.getByRole('heading', { name: 'High ammonia in House 2' }).waitFor();
  assert.equal(await statusOf(), 'open');
  await page.getByRole('button', { name: 'Acknowledge this alert' }).click();
  await page.getByText('This alert is acknowledged.').waitFor();
  assert.equal(await statusOf(), 'acknowledged');
  // Acknowledged by the person the link was made for (issue 44: it was null).
  const acked = await world.t.request<{ acknowledged_by: string | null }>('GET', `/v1/alerts/${alertId}`, {
    key: account.live_key,
  });
  assert.equal(acked.body.acknowledged_by, owner.session.person.id);
  assert.deepEqual(problems, []);
});

test('the Account page saves an ntfy topic with a token (shown as its last four characters) and its severities per farm', async () => {
  const account = await world.t.account('Ntfy');
  const farm = await make.farm(world.t, account.live_key, { name: 'Creek', timezone: 'UTC' });
  const { page, person, problems } = await signedInPage(world, account, PHONE, 'crew');
  await page.goto(`${world.base}/account`);
  await page.getByRole('heading', { name: 'ntfy', exact: true }).waitFor();
  // The topic is one for every farm: it stands above the per-farm choices, not under their heading.
  const headings = await page.evaluate<string[]>(
    `[...document.querySelectorAll('#notifications h2, #notifications h3')].map((h) => h.textContent.trim())`,
  );
  const topicAt = headings.indexOf('ntfy');
  assert.ok(topicAt >= 0 && topicAt < headings.indexOf('What you are told, per farm'), headings.join(' / '));
  // A farm's name (h3) under that heading is not written larger than the heading (h2).
  const sizes = await page.evaluate<number[]>(
    `['#notifications h2', '#notifications h3'].map((s) => parseFloat(getComputedStyle(document.querySelector(s)).fontSize))`,
  );
  assert.ok((sizes[1] ?? 0) <= (sizes[0] ?? 0), `h2 ${sizes[0]} px, h3 ${sizes[1]} px`);
  const url = `${ntfy.url}/console-topic-${process.pid}`;
  await page.getByLabel('Topic URL').fill(url);
  await page.getByLabel('Access token (for a protected topic)').fill('tk_consoleToken000000000000abcd');
  await page.getByRole('button', { name: 'Save topic' }).click();
  await page.locator('form.ntfy-topic').getByRole('status').waitFor();
  await waitFor('the saved token hint', async () =>
    (await page.getByLabel('Access token (for a protected topic)').getAttribute('placeholder'))?.includes(
      '…abcd',
    )
      ? true
      : null,
  );
  // The farm's ntfy boxes: add watch, save.
  const form = page.locator('form.farm-notify').first();
  await form.locator(`#${farm.id}-ntfy-watch`).check();
  await form.getByRole('button', { name: 'Save' }).click();
  await form.getByRole('status').waitFor();
  const settings = await person.request<{
    ntfy: { url: string; token: string | null } | null;
    farms: { farm_id: string; channels: { ntfy: string[] } }[];
  }>('GET', '/v1/me/notification-settings');
  assert.deepEqual(settings.body.ntfy, { url, token: '…abcd' });
  assert.deepEqual(settings.body.farms.find((f) => f.farm_id === farm.id)?.channels.ntfy, [
    'urgent',
    'watch',
  ]);
  // A test notification reaches the topic.
  await page.getByRole('button', { name: 'Send me a test notification' }).click();
  await page.getByText(/^Sent: it should arrive/).waitFor();
  await notificationTurn({ database: world.t.database, config: world.t.config }, Date.now(), {
    briefs: false,
  });
  const got = ntfy.messages.find((m) => m.topic === `console-topic-${process.pid}`);
  assert.equal(got?.title, 'Farmstead test notification');
  assert.equal(got?.headers.authorization, 'Bearer tk_consoleToken000000000000abcd');
  await page.locator('form.ntfy-topic').scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-settings-ntfy-phone');
  // In Spanish: the same section, its words and the saved topic.
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  await page.reload();
  await page.getByRole('heading', { name: 'Qué se le avisa, por granja' }).waitFor();
  await page.locator('form.ntfy-topic').scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-settings-ntfy-phone-es');
  assert.deepEqual(problems, []);
});

/** Each alert of a farm, newest first: its id and status. */
async function alertsOf(key: string, farmId: string) {
  const list = await world.t.request<{ data: { id: string; status: string }[] }>(
    'GET',
    `/v1/farms/${farmId}/alerts?status=all`,
    { key },
  );
  return list.body.data;
}

test('a notice’s link opens its alert: on its farm, even resolved, first, marked and focused; from test mode too', async () => {
  const account = await world.t.account('Linked');
  const ridge = await make.farm(world.t, account.live_key, { name: 'Ridge', timezone: 'UTC' });
  const valley = await make.farm(world.t, account.live_key, { name: 'Valley', timezone: 'UTC' });
  const ridgeHouse = await make.device(world.t, account.live_key, ridge.id, {
    type: 'house',
    name: 'House R',
  });
  const valleyHouse = await make.device(world.t, account.live_key, valley.id, {
    type: 'house',
    name: 'House V',
  });
  await make.report(world.t, ridgeHouse.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });
  await make.report(world.t, valleyHouse.device_key, {
    readings: [{ metric: 'climate.nh3_ppm', value: 27 }],
  });
  const [ridgeAlert] = await alertsOf(account.live_key, ridge.id);
  const [valleyAlert] = await alertsOf(account.live_key, valley.id);
  assert.ok(ridgeAlert && valleyAlert);
  // Resolved since the notice went out: the list's default tab (Open) does not hold it.
  const resolved = await world.t.request('POST', `/v1/alerts/${ridgeAlert.id}/resolve`, {
    key: account.live_key,
  });
  assert.equal(resolved.status, 200);

  const { page, person, problems } = await signedInPage(world, account, PHONE, 'crew');
  // The person was last looking at Valley.
  await page.goto(`${world.base}/alerts`);
  await page.locator('.farm-switcher select').selectOption({ label: 'Valley' });
  await page.locator(`[id="${valleyAlert.id}"]`).waitFor();

  // The link every notice carries (ntfy's click and Open, a push's Open, the email's link).
  await page.goto(`${world.base}/alerts?alert=${ridgeAlert.id}`);
  const card = page.locator(`[id="${ridgeAlert.id}"]`);
  await card.waitFor();
  assert.equal(await page.locator('.farm-switcher select').inputValue(), ridge.id);
  await page.getByText('The alert you were notified about:').waitFor();
  assert.match((await card.getAttribute('class')) ?? '', /\bfresh\b/);
  assert.equal(await card.locator('.status').textContent(), 'resolved');
  await waitFor('the alert to have the focus', () =>
    page.evaluate<boolean>(`document.activeElement?.id === ${JSON.stringify(ridgeAlert.id)}`),
  );
  // Shown once, first: above the tabs, and not again in the list.
  assert.equal(await page.locator(`[id="${ridgeAlert.id}"]`).count(), 1);
  await page.getByText('No open alerts.').waitFor();
  await screenshot(page, 'alert-from-notice-phone');

  // In Spanish, from test mode (the sample farm): the session goes back to live and the alert's farm.
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  assert.equal((await person.request('PATCH', '/v1/session', { body: { mode: 'test' } })).status, 200);
  await page.goto(`${world.base}/alerts?alert=${valleyAlert.id}`);
  const valleyCard = page.locator(`[id="${valleyAlert.id}"]`);
  await valleyCard.waitFor();
  assert.equal(await page.locator('.farm-switcher select').inputValue(), valley.id);
  await page.getByText('La alerta de la que se le avisó:').waitFor();
  assert.equal(await valleyCard.locator('.status').textContent(), 'abierta');
  // Acknowledged from the card, it stays in view as acknowledged.
  await valleyCard.getByRole('button', { name: 'Confirmar' }).click();
  await waitFor('the card to say acknowledged', async () =>
    (await valleyCard.locator('.status').textContent()) === 'confirmada' ? true : null,
  );
  await screenshot(page, 'alert-from-notice-phone-es');
  assert.deepEqual(problems, []);
});

test('a refused ntfy topic stays as typed, its reason beside the field in the reader’s language', async () => {
  const account = await world.t.account('Typo');
  await make.farm(world.t, account.live_key, { name: 'Brook', timezone: 'UTC' });
  const { page, person, problems } = await signedInPage(world, account, PHONE, 'crew');
  await page.goto(`${world.base}/account`);
  const form = page.locator('form.ntfy-topic');
  const url = form.getByLabel('Topic URL');
  await url.fill('ntfy.sh/my topic');
  await form.getByRole('button', { name: 'Save topic' }).click();
  const reason = form.getByText(/^The topic’s URL starts with https:\/\//);
  await reason.waitFor();
  assert.equal(await url.inputValue(), 'ntfy.sh/my topic');
  assert.equal(await url.getAttribute('aria-invalid'), 'true');
  // The field names its reason (aria-describedby), and the server's sentence is only a detail.
  assert.equal(await url.getAttribute('aria-describedby'), await reason.getAttribute('id'));
  await form.getByText('Technical details').waitFor();
  await form.scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-settings-ntfy-refused-phone');

  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  await page.reload();
  const urlEs = form.getByLabel('URL del tema');
  await urlEs.fill('https://ntfy.sh/mi tema');
  await form.getByRole('button', { name: 'Guardar el tema' }).click();
  await form.getByText(/^La URL del tema debe empezar por https:\/\//).waitFor();
  assert.equal(await urlEs.inputValue(), 'https://ntfy.sh/mi tema');
  await form.scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-settings-ntfy-refused-phone-es');
  const settings = await person.request<{ ntfy: unknown }>('GET', '/v1/me/notification-settings');
  assert.equal(settings.body.ntfy, null);
  assert.deepEqual(problems, []);
});

test('the delivery log shows each notice at the time it is listed by, and one held by quiet hours says until when', async () => {
  const account = await world.t.account('Quiet');
  const farm = await make.farm(world.t, account.live_key, { name: 'Hollow', timezone: 'UTC' });
  const house = await make.device(world.t, account.live_key, farm.id, { type: 'house', name: 'House Q' });
  const { page, person, problems } = await signedInPage(world, account, PHONE, 'crew');
  // Quiet hours from an hour ago to an hour from now (UTC: the farm's time); watch notices wait for their end.
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  const end = Date.now() + 3600_000;
  const saved = await person.request('PATCH', '/v1/me/notification-settings', {
    body: {
      farm_id: farm.id,
      ntfy: { url: `${ntfy.url}/quiet-${process.pid}` },
      channels: { ntfy: ['urgent', 'watch'] },
      quiet_hours: { start: hhmm(Date.now() - 3600_000), end: hhmm(end), urgent_breaks_through: true },
    },
  });
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  await make.report(world.t, house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 21 }] });
  await notificationTurn({ database: world.t.database, config: world.t.config }, Date.now(), {
    briefs: false,
  });
  const log = await person.request<{ data: { status: string; next_attempt_at: string | null }[] }>(
    'GET',
    '/v1/me/notifications',
  );
  const held = log.body.data[0];
  assert.equal(held?.status, 'pending');
  assert.ok(held.next_attempt_at && Date.parse(held.next_attempt_at) > Date.now());

  await page.goto(`${world.base}/account`);
  const entry = page.locator('.delivery-log li').first();
  await entry.waitFor();
  // The end of quiet hours, in this browser's time as the page's other times.
  const until = await page.evaluate<string>(
    `((d) => [d.getHours(), d.getMinutes()].map((n) => String(n).padStart(2, '0')).join(':'))(new Date(${JSON.stringify(held.next_attempt_at)}))`,
  );
  const text = (await entry.textContent()) ?? '';
  assert.match(text, new RegExp(`held until [^·]*${until}`), text);
  await entry.scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-log-held-phone');
  assert.equal((await person.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
  await page.reload();
  await page
    .locator('.delivery-log li')
    .first()
    .getByText(/retenido hasta el /)
    .waitFor();
  await page.locator('.delivery-log li').first().scrollIntoViewIfNeeded();
  await screenshot(page, 'notification-log-held-phone-es');
  assert.deepEqual(problems, []);
});
