/**
 * The Account page's notifications: allow them in this browser (a push subscription made with the server's
 * VAPID key), the browsers that allow them (each removable), your ntfy topic (for every farm; its token is
 * shown as its last four characters), what each farm sends you on which channel, quiet hours, muted rules,
 * the morning brief by email, a test notification, and the delivery log.
 */
import { NOTIFICATION_CHANNELS, type NotificationChannel } from '../../../domain/notification-channels.ts';
import { api, type Body, type Problem, type Reply } from './api.ts';
import { Field, fieldError, formError } from './form.ts';
import { t, words } from './i18n.ts';
import { html, useRef, useState } from './lib.ts';
import { EN, ES } from './messages/notifications.ts';
import { ActionButton, ErrorText, farmTime, Loading, useAction, useLoad } from './ui.ts';

type Settings = Reply<'GET', '/v1/me/notification-settings'>;
type FarmSettings = Settings['farms'][number];
const SEVERITIES = ['urgent', 'watch', 'info'] as const;
const w = words(EN, ES);
type Severity = (typeof SEVERITIES)[number];

/** The VAPID key as the bytes PushManager.subscribe wants. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function pushSupport(): string | null {
  if (!('serviceWorker' in navigator) || !('PushManager' in window)) {
    return w('no_push');
  }
  if (Notification.permission === 'denied') {
    return w('blocked');
  }
  return null;
}

/** Asks the browser for permission, subscribes with the server's key and saves the subscription. */
async function allowHere(): Promise<string> {
  if ((await Notification.requestPermission()) !== 'granted') {
    throw new Error(w('not_allowed'));
  }
  const registration = await navigator.serviceWorker.ready;
  const { public_key } = await api('GET', '/v1/notifications/vapid-public-key');
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(public_key),
    }));
  const json = subscription.toJSON() as Body<'POST', '/v1/me/push-subscriptions'>;
  await api('POST', '/v1/me/push-subscriptions', {
    body: { ...json, user_agent: navigator.userAgent.slice(0, 300) },
  });
  return w('allowed');
}

function Browsers() {
  const list = useLoad(() => api('GET', '/v1/me/push-subscriptions', { query: { limit: 100 } }), []);
  const support = pushSupport();
  const allow = async () => {
    const done = await allowHere();
    list.reload();
    return done;
  };
  if (!list.data) return html`<${Loading} error=${list.error} retry=${list.reload} />`;
  return html`<div>
    ${support ? html`<p class="muted">${support}</p>` : html`<${ActionButton} label=${w('allow')} kind="primary" action=${allow} />`}
    ${
      list.data.data.length === 0
        ? html`<p class="muted">${w('no_browser')}</p>`
        : html`<ul class="browsers">${list.data.data.map(
            (b) => html`<li key=${b.id}><span>${b.user_agent ?? b.endpoint_origin}</span>
              <span class="muted">${w('since', { when: farmTime(b.created_at, null) })}</span>
              <${ActionButton} label=${w('remove')} action=${async () => {
                await api('DELETE', '/v1/me/push-subscriptions/{id}', { path: { id: b.id } });
                list.reload();
              }} /></li>`,
          )}</ul>`
    }
  </div>`;
}

/** A refused topic member said in the page's words (the server's, naming the member, is a detail). */
const TOPIC_FIELDS = { 'ntfy.url': 'url_refused', 'ntfy.token': 'token_refused' } as const;

function topicError(error: Problem | null): Problem | null {
  const key = error?.code === 'invalid_request' && TOPIC_FIELDS[error.param as keyof typeof TOPIC_FIELDS];
  return key ? fieldError(w(key), error.param) : error;
}

/** Your ntfy topic, for every farm: saved alone (no farm_id), so no farm's settings are written. */
function NtfyTopic({ saved, reload }: { saved: Settings['ntfy']; reload: () => void }) {
  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const token = String(data.get('ntfy.token') ?? '').trim();
    await api('PATCH', '/v1/me/notification-settings', {
      body: { ntfy: { url: String(data.get('ntfy.url') ?? '').trim(), ...(token ? { token } : {}) } },
    });
    // The token is not kept in the page: it is shown back as its last four characters only.
    (form.elements.namedItem('ntfy.token') as HTMLInputElement).value = '';
    reload();
    return w('saved');
  });
  const form = useRef<HTMLFormElement>(null);
  const remove = async () => {
    await api('PATCH', '/v1/me/notification-settings', { body: { ntfy: null } });
    form.current?.reset(); // the fields are uncontrolled: what was typed gives way
    reload();
    return w('removed');
  };
  const error = topicError(save.error);
  const said = (param: string) =>
    error?.param === param &&
    html`<details class="said"><summary>${t('api.details')}</summary>${save.error?.message}</details>`;
  return html`<form class="ntfy-topic" ref=${form} onSubmit=${(e: Event) => {
    e.preventDefault();
    void save.run(e.currentTarget as HTMLFormElement);
  }}>
    <h3>ntfy</h3>
    <p class="muted">${w('ntfy_help')}</p>
    <${Field} idPrefix="topic" name="ntfy.url" label=${w('topic_url')} value=${saved?.url} error=${error} required
      inputmode="url" autocomplete="off" placeholder="https://ntfy.example.com/farm-alerts" />
    ${said('ntfy.url')}
    <${Field} idPrefix="topic" name="ntfy.token" type="password" label=${w('token')} error=${error} autocomplete="off"
      placeholder=${saved?.token ? w('token_saved', { token: saved.token }) : w('token_optional')} />
    ${said('ntfy.token')}
    <button type="submit" class="button primary" disabled=${save.busy}>${save.busy ? w('saving') : w('save_topic')}</button>
    ${saved && html`<${ActionButton} label=${w('remove_topic')} action=${remove} />`}
    ${save.done && html`<span class="done" role="status">${save.done}</span>`}
    <${ErrorText} error=${formError(error, ['ntfy'])} />
  </form>`;
}

function FarmForm({
  farm,
  email,
  ntfy,
}: {
  farm: FarmSettings;
  email: { available: boolean; unavailable_reason: string | null };
  ntfy: boolean;
}) {
  const [saved, setSaved] = useState(farm);
  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const pick = (channel: string) =>
      SEVERITIES.filter((s) => data.get(`${channel}-${s}`) === 'on') as Severity[];
    // Email's boxes are disabled (and so not in the form) while email is not set up: leave it as it is.
    const shown = NOTIFICATION_CHANNELS.filter((c) => c !== 'email' || email.available);
    const quiet = data.get('quiet') === 'on';
    const body: Body<'PATCH', '/v1/me/notification-settings'> = {
      farm_id: farm.farm_id,
      channels: Object.fromEntries(shown.map((c) => [c, pick(c)])),
      quiet_hours: quiet
        ? {
            start: String(data.get('quiet_start') || '22:00'),
            end: String(data.get('quiet_end') || '06:00'),
            urgent_breaks_through: data.get('breaks') === 'on',
          }
        : null,
      muted_rules: String(data.get('muted') ?? '')
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
      brief_email_at: String(data.get('brief') ?? '') || null,
      resolved_notices: data.get('resolved') === 'on',
    };
    const reply = await api('PATCH', '/v1/me/notification-settings', { body });
    if ('farm_id' in reply) setSaved(reply); // with farm_id, the farm's settings (else the topic alone)
    return w('saved');
  });
  const id = (name: string) => `${farm.farm_id}-${name}`;
  const box = (channel: NotificationChannel, severity: Severity) => html`<label class="check">
    <input type="checkbox" name=${`${channel}-${severity}`} id=${id(`${channel}-${severity}`)}
      checked=${saved.channels[channel].includes(severity)} disabled=${channel === 'email' && !email.available} />
    ${w(`severity.${severity}`)}</label>`;
  return html`<form class="farm-notify" onSubmit=${(e: Event) => {
    e.preventDefault();
    void save.run(e.currentTarget as HTMLFormElement);
  }}>
    <h3>${saved.mode === 'test' ? w('farm_test', { farm: saved.farm_name }) : saved.farm_name}</h3>
    ${NOTIFICATION_CHANNELS.map(
      (channel) => html`<fieldset key=${channel}><legend>${w(`channel.${channel}`)}</legend>
        ${SEVERITIES.map((s) => box(channel, s))}
        ${channel === 'email' && !email.available && html`<p class="muted">${email.unavailable_reason}</p>`}
        ${channel === 'ntfy' && !ntfy && html`<p class="muted">${w('ntfy_first')}</p>`}
      </fieldset>`,
    )}
    <fieldset><legend>${w('quiet')}</legend>
      <label class="check"><input type="checkbox" name="quiet" checked=${saved.quiet_hours !== null} /> ${w('on')}</label>
      <label for=${id('qs')}>${w('from')}</label><input id=${id('qs')} name="quiet_start" type="time" value=${saved.quiet_hours?.start ?? '22:00'} />
      <label for=${id('qe')}>${w('to')}</label><input id=${id('qe')} name="quiet_end" type="time" value=${saved.quiet_hours?.end ?? '06:00'} />
      <label class="check"><input type="checkbox" name="breaks" checked=${saved.quiet_hours?.urgent_breaks_through ?? true} /> ${w('breaks')}</label>
    </fieldset>
    <label for=${id('muted')}>${w('muted')}</label>
    <input id=${id('muted')} name="muted" type="text" value=${saved.muted_rules.join(', ')} />
    <label for=${id('brief')}>${w('brief')}</label>
    <input id=${id('brief')} name="brief" type="time" value=${saved.brief_email_at ?? ''} disabled=${!email.available} />
    <label class="check"><input type="checkbox" name="resolved" checked=${saved.resolved_notices} /> ${w('resolved')}</label>
    <button type="submit" class="button primary" disabled=${save.busy}>${save.busy ? w('saving') : w('save')}</button>
    ${save.done && html`<span class="done" role="status">${save.done}</span>`}
    <${ErrorText} error=${save.error} />
  </form>`;
}

type Notice = Reply<'GET', '/v1/me/notifications'>['data'][number];

/** Sent (when, if not when made), or held until when (quiet hours, or a retry's wait). */
function noticeState(n: Notice, now = Date.now()): string {
  const sent = n.sent_at && farmTime(n.sent_at, null);
  if (sent && sent !== farmTime(n.created_at, null)) return w('sent_at', { when: sent });
  const next = n.status === 'pending' && n.next_attempt_at;
  if (next && Date.parse(next) > now) {
    return w('held_until', { when: farmTime(next, null) });
  }
  return n.status;
}

/** Newest first, as the API lists them: each at the time it is listed by, when it was made. */
function Log() {
  const log = useLoad(() => api('GET', '/v1/me/notifications', { query: { limit: 20 } }), []);
  if (!log.data) return html`<${Loading} error=${log.error} retry=${log.reload} />`;
  if (log.data.data.length === 0) return html`<p class="muted">${w('nothing_sent')}</p>`;
  return html`<ul class="delivery-log">${log.data.data.map(
    (n) => html`<li key=${n.id}><strong>${n.title}</strong>
      <span class="muted"> · ${farmTime(n.created_at, null)} · ${n.channel} · ${noticeState(n)}</span>
      ${n.answer && html`<br /><small class="muted">${n.answer}</small>`}</li>`,
  )}</ul>`;
}

export function Notifications() {
  const settings = useLoad(() => api('GET', '/v1/me/notification-settings'), []);
  const test = async () => {
    await api('POST', '/v1/me/notifications/test', { body: {} });
    return w('test_sent');
  };
  return html`<section class="panel" id="notifications">
    <h2>${w('title')}</h2>
    <${Browsers} />
    <p><${ActionButton} label=${w('send_test')} action=${test} /></p>
    ${
      // The ntfy topic is one for every farm: above the per-farm choices, not among them (and set up before any).
      settings.data && html`<${NtfyTopic} saved=${settings.data.ntfy} reload=${settings.reload} />`
    }
    <h2>${w('per_farm')}</h2>
    ${
      settings.data?.farms.length === 0
        ? html`<p class="muted">${w('no_farms')}</p>`
        : settings.data
          ? settings.data.farms.map(
              (farm) =>
                html`<${FarmForm} key=${farm.farm_id} farm=${farm} email=${settings.data?.email} ntfy=${settings.data?.ntfy !== null} />`,
            )
          : html`<${Loading} error=${settings.error} retry=${settings.reload} />`
    }
    <h2>${w('log')}</h2>
    <${Log} />
  </section>`;
}
