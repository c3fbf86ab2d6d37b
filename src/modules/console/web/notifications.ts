/**
 * The Account page's notifications: allow them in this browser (a push subscription made with the server's
 * VAPID key), the browsers that allow them (each removable), your ntfy topic (for every farm; its token is
 * shown as its last four characters), what each farm sends you on which channel, quiet hours, muted rules,
 * the morning brief by email, a test notification, and the delivery log.
 */
import {
  NOTIFICATION_CHANNEL_INFO,
  NOTIFICATION_CHANNELS,
  type NotificationChannel,
} from '../../../domain/notification-channels.ts';
import { api, type Body, type Reply } from './api.ts';
import { html, useState } from './lib.ts';
import { ActionButton, ErrorText, farmTime, Loading, useAction, useLoad } from './ui.ts';

type Settings = Reply<'GET', '/v1/me/notification-settings'>;
type FarmSettings = Settings['farms'][number];
const SEVERITIES = ['urgent', 'watch', 'info'] as const;
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
    return 'This browser cannot receive notifications. On an iPhone or iPad, add Farmstead to the Home Screen (Share → Add to Home Screen) and open it from there.';
  }
  if (Notification.permission === 'denied') {
    return 'Notifications are blocked for this site in the browser’s settings; allow them there first.';
  }
  return null;
}

/** Asks the browser for permission, subscribes with the server's key and saves the subscription. */
async function allowHere(): Promise<string> {
  if ((await Notification.requestPermission()) !== 'granted') {
    throw new Error('Notifications were not allowed in this browser.');
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
  return 'Notifications are allowed in this browser.';
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
    ${support ? html`<p class="muted">${support}</p>` : html`<${ActionButton} label="Allow notifications in this browser" kind="primary" action=${allow} />`}
    ${
      list.data.data.length === 0
        ? html`<p class="muted">No browser of yours allows notifications yet.</p>`
        : html`<ul class="browsers">${list.data.data.map(
            (b) => html`<li key=${b.id}><span>${b.user_agent ?? b.endpoint_origin}</span>
              <span class="muted"> · since ${farmTime(b.created_at, null)}</span>
              <${ActionButton} label="Remove" action=${async () => {
                await api('DELETE', '/v1/me/push-subscriptions/{id}', { path: { id: b.id } });
                list.reload();
              }} /></li>`,
          )}</ul>`
    }
  </div>`;
}

/** Your ntfy topic, for every farm: saved with the PATCH of your first farm's settings (any farm would do). */
function NtfyTopic({
  saved,
  farmId,
  reload,
}: {
  saved: Settings['ntfy'];
  farmId: string;
  reload: () => void;
}) {
  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const token = String(data.get('ntfy_token') ?? '').trim();
    await api('PATCH', '/v1/me/notification-settings', {
      body: {
        farm_id: farmId,
        ntfy: { url: String(data.get('ntfy_url') ?? '').trim(), ...(token ? { token } : {}) },
      },
    });
    // The token is not kept in the page: it is shown back as its last four characters only.
    (form.elements.namedItem('ntfy_token') as HTMLInputElement).value = '';
    reload();
    return 'Saved.';
  });
  const remove = async () => {
    await api('PATCH', '/v1/me/notification-settings', { body: { farm_id: farmId, ntfy: null } });
    reload();
    return 'Removed.';
  };
  return html`<form class="ntfy-topic" onSubmit=${(e: Event) => {
    e.preventDefault();
    void save.run(e.currentTarget as HTMLFormElement);
  }}>
    <h3>ntfy</h3>
    <p class="muted">Your own ntfy topic (ntfy.sh or your server): urgent alerts arrive at top priority with an Acknowledge button. Choose what it carries per farm below.</p>
    <label for="ntfy-url">Topic URL</label>
    <input id="ntfy-url" name="ntfy_url" type="text" inputmode="url" autocomplete="off" required placeholder="https://ntfy.example.com/farm-alerts" value=${saved?.url ?? ''} />
    <label for="ntfy-token">Access token (for a protected topic)</label>
    <input id="ntfy-token" name="ntfy_token" type="password" autocomplete="off"
      placeholder=${saved?.token ? `saved (${saved.token}); leave empty to keep it` : 'tk_… (optional)'} />
    <button type="submit" class="button primary" disabled=${save.busy}>${save.busy ? 'Saving…' : 'Save topic'}</button>
    ${saved && html`<${ActionButton} label="Remove topic" action=${remove} />`}
    ${save.done && html`<span class="done" role="status">${save.done}</span>`}
    <${ErrorText} error=${save.error} />
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
    setSaved(await api('PATCH', '/v1/me/notification-settings', { body }));
    return 'Saved.';
  });
  const id = (name: string) => `${farm.farm_id}-${name}`;
  const box = (channel: NotificationChannel, severity: Severity) => html`<label class="check">
    <input type="checkbox" name=${`${channel}-${severity}`} id=${id(`${channel}-${severity}`)}
      checked=${saved.channels[channel].includes(severity)} disabled=${channel === 'email' && !email.available} />
    ${severity}</label>`;
  return html`<form class="farm-notify" onSubmit=${(e: Event) => {
    e.preventDefault();
    void save.run(e.currentTarget as HTMLFormElement);
  }}>
    <h3>${saved.farm_name}${saved.mode === 'test' ? ' (test)' : ''}</h3>
    ${NOTIFICATION_CHANNELS.map(
      (channel) => html`<fieldset key=${channel}><legend>${NOTIFICATION_CHANNEL_INFO[channel].label}</legend>
        ${SEVERITIES.map((s) => box(channel, s))}
        ${channel === 'email' && !email.available && html`<p class="muted">${email.unavailable_reason}</p>`}
        ${channel === 'ntfy' && !ntfy && html`<p class="muted">Add your ntfy topic above to receive these.</p>`}
      </fieldset>`,
    )}
    <fieldset><legend>Quiet hours (farm time)</legend>
      <label class="check"><input type="checkbox" name="quiet" checked=${saved.quiet_hours !== null} /> On</label>
      <label for=${id('qs')}>From</label><input id=${id('qs')} name="quiet_start" type="time" value=${saved.quiet_hours?.start ?? '22:00'} />
      <label for=${id('qe')}>To</label><input id=${id('qe')} name="quiet_end" type="time" value=${saved.quiet_hours?.end ?? '06:00'} />
      <label class="check"><input type="checkbox" name="breaks" checked=${saved.quiet_hours?.urgent_breaks_through ?? true} /> Urgent alerts still wake me</label>
    </fieldset>
    <label for=${id('muted')}>Rules you never want to hear about (comma-separated, e.g. device.battery)</label>
    <input id=${id('muted')} name="muted" type="text" value=${saved.muted_rules.join(', ')} />
    <label for=${id('brief')}>Morning brief by email at (farm time; empty: none)</label>
    <input id=${id('brief')} name="brief" type="time" value=${saved.brief_email_at ?? ''} disabled=${!email.available} />
    <label class="check"><input type="checkbox" name="resolved" checked=${saved.resolved_notices} /> Tell me when an alert I was told about resolves</label>
    <button type="submit" class="button primary" disabled=${save.busy}>${save.busy ? 'Saving…' : 'Save'}</button>
    ${save.done && html`<span class="done" role="status">${save.done}</span>`}
    <${ErrorText} error=${save.error} />
  </form>`;
}

function Log() {
  const log = useLoad(() => api('GET', '/v1/me/notifications', { query: { limit: 20 } }), []);
  if (!log.data) return html`<${Loading} error=${log.error} retry=${log.reload} />`;
  if (log.data.data.length === 0) return html`<p class="muted">Nothing sent to you yet.</p>`;
  return html`<ul class="delivery-log">${log.data.data.map(
    (n) => html`<li key=${n.id}><strong>${n.title}</strong>
      <span class="muted"> · ${n.channel} · ${n.status} · ${farmTime(n.sent_at ?? n.created_at, null)}</span>
      ${n.answer && html`<br /><small class="muted">${n.answer}</small>`}</li>`,
  )}</ul>`;
}

export function Notifications() {
  const settings = useLoad(() => api('GET', '/v1/me/notification-settings'), []);
  const test = async () => {
    await api('POST', '/v1/me/notifications/test', { body: {} });
    return 'Sent: it should arrive in a few seconds (the log below says what each channel answered).';
  };
  return html`<section class="panel" id="notifications">
    <h2>Notifications</h2>
    <${Browsers} />
    <p><${ActionButton} label="Send me a test notification" action=${test} /></p>
    <h2>What you are told, per farm</h2>
    ${
      settings.data
        ? html`${
            settings.data.farms[0] &&
            html`<${NtfyTopic} saved=${settings.data.ntfy} farmId=${settings.data.farms[0].farm_id} reload=${settings.reload} />`
          }
          ${settings.data.farms.map(
            (farm) =>
              html`<${FarmForm} key=${farm.farm_id} farm=${farm} email=${settings.data?.email} ntfy=${settings.data?.ntfy !== null} />`,
          )}`
        : html`<${Loading} error=${settings.error} retry=${settings.reload} />`
    }
    <h2>Delivery log</h2>
    <${Log} />
  </section>`;
}
