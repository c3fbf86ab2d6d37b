/**
 * Notifications in each person's language and units (issue 45), on both engines, against real parts: a
 * person who reads US units gets °F in a real web push (decrypted by test/push-service.ts) and in ntfy's
 * buttons; a person who reads Spanish gets a Spanish email through a real SMTP server; the others keep
 * metric English. The catalogs: every language has every key with the same placeholders.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { assertTranslates } from '../../../test/catalogs.ts';
import * as make from '../../../test/factories.ts';
import { forEachEngine, type TestApp } from '../../../test/harness.ts';
import { type SignedIn, signedInPerson } from '../../../test/people.ts';
import { type PushService, startPushService } from '../../../test/push-service.ts';
import { type SmtpReceiver, startSmtpReceiver } from '../../../test/smtp-receiver.ts';
import { LANGUAGES } from '../../domain/display-units.ts';
import { notificationTurn } from '../../workers/notification-delivery.ts';
import { renderNtfy } from './channels/ntfy.ts';
import { alertNotice, emailText, resolvedNotice } from './content.ts';
import { NOTICE_MESSAGES } from './messages.ts';

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

function turn(t: TestApp, now: number) {
  return notificationTurn(
    {
      database: t.database,
      config: { ...t.config, smtpUrl: smtp.url, emailFrom: 'Farmstead <alerts@farm.test>' },
    },
    now,
    { briefs: false },
  );
}

/** A received email's text, quoted-printable decoded (nodemailer writes non-ASCII text so). */
function textOf(raw: string): string {
  const body = raw.slice(raw.indexOf('\r\n\r\n') + 4).replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const hex = body[i] === '=' ? body.slice(i + 1, i + 3) : '';
    if (/^[0-9A-F]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(body.charCodeAt(i));
  }
  return Buffer.from(bytes).toString('utf8');
}

async function subscribe(person: SignedIn) {
  const browser = push.subscription();
  const res = await person.request('POST', '/v1/me/push-subscriptions', { body: browser.json });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return browser;
}

forEachEngine(
  'notifications in the person’s language and units',
  (t) => {
    test('a house too hot: US units read °F in the push, Spanish reads a Spanish email, metric English stays', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Hillside', timezone: 'UTC' });
      const house = await make.device(t(), account.live_key, farm.id, { type: 'house', name: 'House 2' });
      const american = await signedInPerson(t(), account, 'owner');
      const spanish = await signedInPerson(t(), account, 'owner');
      const metric = await signedInPerson(t(), account, 'crew');
      const spanishUs = await signedInPerson(t(), account, 'crew');
      for (const [person, body] of [
        [american, { units: 'us' }],
        [spanish, { language: 'es' }],
        [spanishUs, { language: 'es', units: 'us' }],
      ] as const) {
        assert.equal((await person.request('PATCH', '/v1/me', { body })).status, 200);
      }
      const usBrowser = await subscribe(american);
      const metricBrowser = await subscribe(metric);
      const spanishUsBrowser = await subscribe(spanishUs);
      const before = smtp.received.length;
      const start = Date.now();
      await make.report(t(), house.device_key, { readings: [{ metric: 'climate.temp_c', value: 36 }] });
      await turn(t(), start);

      const usPush = push.received.find((r) => r.subscription === usBrowser.id)?.payload;
      assert.ok(usPush, 'the US reader’s browser got a push');
      assert.match(String(usPush.body), /96\.8°F/);
      assert.match(String(usPush.body), /95°F/, 'the urgent line, converted');
      assert.doesNotMatch(String(usPush.body), /°C/);
      assert.deepEqual(usPush.labels, { acknowledge: 'Acknowledge', open: 'Open' });
      const metricPush = push.received.find((r) => r.subscription === metricBrowser.id)?.payload;
      assert.match(String(metricPush?.body), /36°C/);
      // The alert's own words in Spanish (its title and reason), with the units still converted.
      const esPush = push.received.find((r) => r.subscription === spanishUsBrowser.id)?.payload;
      assert.equal(esPush?.title, 'Urgente: Temperatura alta en House 2');
      assert.match(
        String(esPush?.body),
        /^Temperatura 96,8 °F en House 2: igual o por encima del umbral urgente de 95 °F — Hillside, /,
      );

      const mails = smtp.received.slice(before);
      const es = mails.find((m) => m.to.includes(spanish.session.person.email));
      assert.ok(es, 'the Spanish reader got an email');
      assert.match(es.raw, /Subject: Urgente: /);
      const text = textOf(es.raw);
      assert.match(text, /^Urgente: Temperatura alta en House 2\r?\n/);
      assert.match(
        text,
        /\nTemperatura 36 °C en House 2: igual o por encima del umbral urgente de 35 °C — Hillside, /,
      );
      assert.match(text, /Abrir la alerta: http/);
      assert.match(text, /Confirmarla: http[^\s]*\/ack\//);
      assert.match(text, /Cambie lo que recibe en la página Mi cuenta/);
      assert.match(text, /36 °C/);
      const en = mails.find((m) => m.to.includes(american.session.person.email));
      assert.match(String(en?.raw), /Open the alert: http/);
      assert.match(textOf(String(en?.raw)), /Urgent: High temperature in House 2/);
    });

    test('the test notification is in the person’s language; so is why email is not offered', async () => {
      const account = await t().account();
      const spanish = await signedInPerson(t(), account, 'owner');
      const english = await signedInPerson(t(), account, 'crew');
      assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
      const browsers = [await subscribe(spanish), await subscribe(english)];
      for (const person of [spanish, english]) {
        const res = await person.request('POST', '/v1/me/notifications/test', { body: { channel: 'push' } });
        assert.equal(res.status, 202, JSON.stringify(res.body));
      }
      await turn(t(), Date.now());
      const [es, en] = browsers.map(
        (b) => push.received.filter((r) => r.subscription === b.id).at(-1)?.payload,
      );
      assert.equal(es?.title, 'Notificación de prueba de Farmstead');
      assert.equal(es?.body, 'Las notificaciones le llegan aquí. Las alertas se verán así.');
      assert.equal(en?.title, 'Farmstead test notification');
      // This app has no SMTP: the reason is in the reader's words.
      type S = { email: { unavailable_reason: string | null } };
      const esSettings = (await spanish.request<S>('GET', '/v1/me/notification-settings')).body;
      assert.match(
        String(esSettings.email.unavailable_reason),
        /^El correo no está configurado en este servidor/,
      );
      const enSettings = (await english.request<S>('GET', '/v1/me/notification-settings')).body;
      assert.match(String(enSettings.email.unavailable_reason), /^Email is not set up on this server/);
    });

    test('an animal in a Spanish notification: its name and "crotal" for its tag, in the push and the email', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Hillside', timezone: 'UTC' });
      const spanish = await signedInPerson(t(), account, 'owner');
      assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
      const browser = await subscribe(spanish);
      const animal = await t().request<{ id: string }>('POST', `/v1/farms/${farm.id}/animals`, {
        key: account.live_key,
        body: { species: 'cattle', name: 'Bella', tag: '126' },
      });
      assert.equal(animal.status, 201, JSON.stringify(animal.body));
      const bolus = await make.device(t(), account.live_key, farm.id, {
        type: 'bolus',
        name: 'Bolus 7',
        animal_id: animal.body.id,
      });
      const before = smtp.received.length;
      const start = Date.now();
      await make.report(t(), bolus.device_key, { readings: [{ metric: 'body.temp_c', value: 41 }] });
      await turn(t(), start);

      const esPush = push.received.find((r) => r.subscription === browser.id)?.payload;
      assert.equal(esPush?.title, 'Urgente: Temperatura elevada: Bella (crotal 126)');
      assert.match(String(esPush?.body), /^Temperatura corporal 41 °C de Bella \(crotal 126\) \(Bolus 7\): /);
      const mail = smtp.received.slice(before).find((m) => m.to.includes(spanish.session.person.email));
      assert.ok(mail, 'the Spanish reader got an email');
      const text = textOf(mail.raw);
      assert.match(text, /^Urgente: Temperatura elevada: Bella \(crotal 126\)\r?\n/);
      assert.doesNotMatch(text, /tag 126/);
    });

    test('the brief in Spanish for a Spanish person, on the page and by email; an API key reads English', async () => {
      const account = await t().account();
      const farm = await make.farm(t(), account.live_key, { name: 'Hillside', timezone: 'UTC' });
      const house = await make.device(t(), account.live_key, farm.id, { type: 'house', name: 'House 2' });
      const spanish = await signedInPerson(t(), account, 'owner');
      assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
      const now = Date.now();
      const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
      const task = await spanish.request('POST', `/v1/farms/${farm.id}/tasks`, {
        body: { title: 'Revisar bebederos', due_at: `${yesterday}T17:00:00Z` },
      });
      assert.equal(task.status, 201, JSON.stringify(task.body));
      const paddock = await spanish.request('POST', `/v1/farms/${farm.id}/paddocks`, {
        body: {
          name: 'Far Field',
          rest_days_target: 30,
          last_grazed_at: new Date(now - 50 * 86_400_000).toISOString(),
        },
      });
      assert.equal(paddock.status, 201, JSON.stringify(paddock.body));
      await make.report(t(), house.device_key, { readings: [{ metric: 'climate.nh3_ppm', value: 26 }] });

      type Brief = {
        houses: Array<{ attention: string[] }>;
        headline: string;
        text: string;
        items: Array<{ kind: string; title: string; detail: string }>;
      };
      const es = await spanish.request<Brief>('GET', `/v1/farms/${farm.id}/brief`);
      assert.equal(es.status, 200);
      assert.match(
        es.body.headline,
        /^1 alerta urgente: Amoníaco alto en House 2\. Además: .*1 tarea atrasada/,
      );
      assert.match(es.body.text, /Urgentes: Amoníaco alto en House 2\. /);
      assert.match(es.body.text, /Atrasadas: Revisar bebederos\. /);
      const alert = es.body.items.find((i) => i.kind === 'alert');
      assert.equal(
        alert?.detail,
        'Amoníaco 26 ppm en House 2: igual o por encima del umbral urgente de 25 ppm',
      );
      const overdue = es.body.items.find((i) => i.kind === 'task_overdue');
      assert.equal(overdue?.detail, 'Atrasada: vencía ayer 17:00');
      const rested = es.body.items.find((i) => i.kind === 'paddock_rest');
      assert.equal(rested?.title, 'Far Field superó su descanso objetivo');
      assert.equal(rested?.detail, 'Descansó 50 días; objetivo: 30 días. Listo para pastorear.');
      assert.match(es.body.text, /Descansados y listos para pastorear: Far Field\./);
      assert.match(es.body.text, /House 2: amoníaco 26 ppm, puertas cerradas\./, 'the house line');
      assert.deepEqual(es.body.houses[0]?.attention, ['amoníaco 26 ppm']);

      const english = await make.fetched<Brief>(t(), account.live_key, `/v1/farms/${farm.id}/brief`);
      assert.match(english.headline, /^1 urgent alert: High ammonia in House 2 — also /);
      assert.equal(
        english.items.find((i) => i.kind === 'task_overdue')?.detail,
        'Overdue: due yesterday 17:00',
      );
      const asked = await make.fetched<Brief>(
        t(),
        account.live_key,
        `/v1/farms/${farm.id}/brief?language=es`,
      );
      assert.equal(asked.headline, es.body.headline);

      const at = new Date(now - 60_000).toISOString().slice(11, 16);
      const set = await spanish.request('PATCH', '/v1/me/notification-settings', {
        body: { farm_id: farm.id, brief_email_at: at },
      });
      assert.equal(set.status, 200);
      const before = smtp.received.length;
      const { queueDueBriefs } = await import('./brief-email.ts');
      const { deliverDue } = await import('./delivery.ts');
      const options = { now, publicUrl: t().config.publicUrl, email: true };
      assert.ok((await queueDueBriefs(t().database.db, options)) >= 1);
      await deliverDue(t().database.db, { ...t().config, smtpUrl: smtp.url }, { now: now + 1000 });
      const mail = smtp.received.slice(before).find((m) => m.to.includes(spanish.session.person.email));
      assert.ok(mail, 'the Spanish reader got the brief by email');
      const text = textOf(mail.raw);
      assert.match(text, /Urgentes: Amoníaco alto en House 2\. /);
      assert.match(text, /Atrasadas: Revisar bebederos\. /);
      assert.match(text, /Abrir el resumen: http/);
    });
  },
  { webhookAllowPrivate: true },
);

test('the notices’ words in Spanish and the US units, built alone', () => {
  const alert = {
    id: 'alr_1',
    severity: 'watch' as const,
    title: 'Heavy animal',
    reason: 'Weight 412 kg for Bella (A12) — at or above the watch line of 400 kg',
    rule: 'x',
    created_at: Date.UTC(2026, 0, 1, 6, 5),
  };
  const farm = { name: 'Hillside', timezone: 'UTC' };
  const es = { language: 'es', units: 'us' } as const;
  const notice = alertNotice(alert, farm, 1, es);
  assert.equal(notice.title, 'Atención: Heavy animal (aún sin confirmar)');
  assert.equal(
    notice.body,
    'Weight 908 lb for Bella (A12) — at or above the watch line of 882 lb — Hillside, 06:05',
  );
  assert.match(resolvedNotice(alert, farm, alert.created_at, es).title, /^Resuelta: /);
  const text = emailText({ ...notice, url: 'https://f/a', ackUrl: null, farmName: 'Hillside' }, es);
  assert.match(text, /Abrir la alerta: https:\/\/f\/a/);
  assert.doesNotMatch(text, /Confirmarla/);
  const ntfy = renderNtfy({
    row: { kind: 'alert', severity: 'watch', title: 't', body: 'b', url: 'https://f/a' } as never,
    farmName: 'Hillside',
    ackToken: 'tok',
    publicUrl: 'https://f',
    reader: es,
  });
  assert.deepEqual(
    ntfy.actions.map((a) => a.label),
    ['Confirmar', 'Abrir'],
  );
});

test('every language has every notice key, with the same placeholders', () => {
  for (const language of LANGUAGES) assertTranslates(language, NOTICE_MESSAGES.en, NOTICE_MESSAGES[language]);
});
