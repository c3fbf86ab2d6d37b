/**
 * The Settings page's Webhooks section: a farm's webhooks with their events, test event and delivery log.
 * Its own module, loaded when the section is opened, so the other sections of Settings do not carry it.
 */
import { api, type Schema } from './api.ts';
import { Field, ShownOnce, Submit, text, useForm } from './form.ts';
import { words } from './i18n.ts';
import { html, useState } from './lib.ts';
import { EN, ES } from './messages/settings-webhooks.ts';
import { type Farm, catalog as loadedCatalog, useStore } from './store.ts';
import { ActionButton, ago, Loading, useLoad } from './ui.ts';

const w = words(EN, ES);

function EventChecks({
  chosen,
  onChange,
  idPrefix,
}: {
  chosen: string[];
  onChange(events: string[]): void;
  idPrefix: string;
}) {
  useStore();
  const names = loadedCatalog().webhook_events.map((e) => e.name);
  const all = chosen.includes('*');
  const toggle = (name: string) =>
    onChange(
      chosen.includes(name) ? chosen.filter((n) => n !== name) : [...chosen.filter((n) => n !== '*'), name],
    );
  return html`<fieldset class="checks"><legend>${w('events')}</legend>
    <label><input type="checkbox" id=${`${idPrefix}-all`} checked=${all} onChange=${() => onChange(all ? [] : ['*'])} />${w('every_event')}</label>
    ${names.map(
      (n) =>
        html`<label><input type="checkbox" checked=${all || chosen.includes(n)} disabled=${all} onChange=${() => toggle(n)} />${n}</label>`,
    )}
  </fieldset>`;
}

function Deliveries({ webhook }: { webhook: Schema<'Webhook'> }) {
  const deliveries = useLoad(
    () => api('GET', '/v1/webhooks/{id}/deliveries', { path: { id: webhook.id }, query: { limit: 20 } }),
    [webhook.id],
  );
  if (!deliveries.data) return html`<${Loading} error=${deliveries.error} retry=${deliveries.reload} />`;
  return html`<div class="deliveries">
    <div class="actions"><h4>${w('delivery_log')}</h4>
      <button type="button" class="button link" onClick=${deliveries.reload}>${w('refresh')}</button></div>
    ${deliveries.data.data.length === 0 && html`<p class="muted small">${w('nothing_delivered')}</p>`}
    <ul class="history">${deliveries.data.data.map(
      (d) => html`<li key=${d.id}>
        <span class="when">${ago(d.created_at)}</span> <strong>${d.event_type}</strong>
        <span class=${`status ${d.status === 'succeeded' ? 'resolved' : d.status === 'failed' ? 'expired' : ''}`}>${d.status}</span>
        <ul class="attempts">${d.attempts.map(
          (a) =>
            html`<li>${w(
              a.trigger === 'manual'
                ? a.error
                  ? 'attempt_manual_error'
                  : 'attempt_manual'
                : a.error
                  ? 'attempt_error'
                  : 'attempt',
              {
                number: a.number,
                answer: a.status_code !== null ? w('http', { code: a.status_code }) : w('no_answer'),
                error: a.error ?? '',
                ms: a.duration_ms,
              },
            )}</li>`,
        )}</ul>
        ${
          d.status !== 'pending' &&
          html`<${ActionButton} label=${w('retry')} action=${async () => {
            await api('POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
              path: { id: webhook.id, delivery_id: d.id },
            });
            deliveries.reload();
            return w('retried');
          }} />`
        }
      </li>`,
    )}</ul>
  </div>`;
}

function WebhookCard({ webhook, onChanged }: { webhook: Schema<'Webhook'>; onChanged(): void }) {
  const [events, setEvents] = useState<string[]>(webhook.events);
  const [log, setLog] = useState(0);
  const saveEvents = useForm(async () => {
    await api('PATCH', '/v1/webhooks/{id}', { path: { id: webhook.id }, body: { events } });
    onChanged();
    return w('events_saved');
  });
  return html`<li class="card" id=${webhook.id}>
    <div class="card-head"><h3 class="card-title">${webhook.url}</h3>
      <span class=${`status ${webhook.status === 'enabled' ? 'resolved' : 'expired'}`}>${webhook.status}</span></div>
    ${webhook.disabled_reason && html`<p class="error">${webhook.disabled_reason}</p>`}
    <form onSubmit=${saveEvents.onSubmit}>
      <${EventChecks} chosen=${events} onChange=${setEvents} idPrefix=${webhook.id} />
      <${Submit} form=${saveEvents} label=${w('save_events')} names=${['events']} />
    </form>
    <div class="actions">
      <${ActionButton} label=${w('send_test')} action=${async () => {
        const delivery = await api('POST', '/v1/webhooks/{id}/test', { path: { id: webhook.id } });
        setLog((n) => n + 1);
        return delivery.status === 'succeeded'
          ? w('test_delivered', { code: delivery.last_status_code ?? '—' })
          : w('test_failed', {
              error: delivery.last_error ?? w('http', { code: delivery.last_status_code ?? '—' }),
            });
      }} />
      <${ActionButton} label=${w('delete')} kind="danger" action=${async () => {
        if (!confirm(w('delete_confirm', { url: webhook.url }))) return w('kept');
        await api('DELETE', '/v1/webhooks/{id}', { path: { id: webhook.id } });
        onChanged();
        return w('deleted');
      }} />
    </div>
    <${Deliveries} key=${log} webhook=${webhook} />
  </li>`;
}

/** A farm's webhooks: each with its events, a test event, delete and its delivery log; add one. */
export function Webhooks({ farm }: { farm: Farm }) {
  const path = { farm: farm.id };
  const hooks = useLoad(
    () => api('GET', '/v1/farms/{farm}/webhooks', { path, query: { limit: 100 } }),
    [farm.id],
  );
  const [events, setEvents] = useState<string[]>(['*']);
  const [secret, setSecret] = useState<string | null>(null);
  const add = useForm(async (data, el) => {
    const hook = await api('POST', '/v1/farms/{farm}/webhooks', {
      path,
      body: { url: text(data, 'url') ?? '', events },
    });
    setSecret(hook.secret ?? null);
    el.reset();
    hooks.reload();
    return w('webhook_added');
  });
  return html`<section class="panel" aria-labelledby="hooks-title">
    <h2 id="hooks-title">${w('webhooks')}</h2>
    ${
      !hooks.data
        ? html`<${Loading} error=${hooks.error} retry=${hooks.reload} />`
        : html`<ul class="cards">${hooks.data.data.map((h) => html`<${WebhookCard} key=${h.id} webhook=${h} onChanged=${hooks.reload} />`)}</ul>`
    }
    <form onSubmit=${add.onSubmit} aria-label=${w('add_webhook')}>
      <h3>${w('add_webhook')}</h3>
      <${Field} name="url" label=${w('url')} type="url" required error=${add.error} idPrefix="hook" placeholder="https://example.com/farmstead" />
      <${EventChecks} chosen=${events} onChange=${setEvents} idPrefix="hook-new" />
      <${Submit} form=${add} label=${w('submit_webhook')} names=${['url', 'events']} />
    </form>
    ${secret && html`<${ShownOnce} title=${w('signing_secret')} value=${secret} />`}
  </section>`;
}
