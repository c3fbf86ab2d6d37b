/**
 * Settings (owners; the navigation hides the page from crew and the API refuses them anyway), in sections
 * each at its own address: the farm's facts and adding a farm (/settings), its alert thresholds as a table
 * (defaults beside overrides, the API's error on the cell it names) with the water, silence and intake rules
 * (rule-settings.ts) (/settings/rules), the escalation chain (/settings/escalation), webhooks with their
 * delivery log (/settings/webhooks), API keys (/settings/keys), and the account's usage as a chart
 * (/settings/usage, settings-usage.ts, loaded when opened). People have their own page.
 */
import { api, type Problem, type Reply, type Schema } from '../api.ts';
import { Field, number, ShownOnce, Submit, text, useForm } from '../form.ts';
import { words } from '../i18n.ts';
import { type ComponentChildren, html, inputValue, useEffect, useState } from '../lib.ts';
import { EN, ES } from '../messages/settings.ts';
import { useReader } from '../reader-hook.ts';
import {
  type Catalog,
  type Farm,
  loadCatalog,
  catalog as loadedCatalog,
  state,
  update,
  useStore,
} from '../store.ts';
import { ActionButton, ago, ErrorText, farmTime, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';
import { BuiltInRules, type RuleSettings, saveRules } from './rule-settings.ts';

const w = words(EN, ES);

function FarmFacts({ farm }: { farm: Farm }) {
  const form = useForm(async (data) => {
    const saved = await api('PATCH', '/v1/farms/{farm}', {
      path: { farm: farm.id },
      body: {
        name: text(data, 'name') ?? '',
        timezone: text(data, 'timezone') ?? '',
        lat: number(data, 'lat'),
        lon: number(data, 'lon'),
        acres: number(data, 'acres'),
      },
    });
    update({ farms: state.farms.map((f) => (f.id === saved.id ? saved : f)) });
    return w('saved');
  });
  const p = { error: form.error, idPrefix: 'farm' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="farm-title">
    <h2 id="farm-title">${w('farm')}</h2>
    <div class="form-grid">
      <${Field} name="name" label=${w('name')} value=${farm.name} required ...${p} />
      <${Field} name="timezone" label=${w('timezone')} value=${farm.timezone} list="timezones" required ...${p} />
      <${Field} name="lat" label=${w('lat')} type="number" step="any" min="-90" max="90" value=${farm.lat} ...${p} />
      <${Field} name="lon" label=${w('lon')} type="number" step="any" min="-180" max="180" value=${farm.lon} ...${p} />
      <${Field} name="acres" label=${w('acres')} type="number" step="any" min="0" value=${farm.acres} ...${p} />
    </div>
    <${TimeZones} id="timezones" />
    <${Submit} form=${form} label=${w('save_farm')} names=${['name', 'timezone', 'lat', 'lon', 'acres']} />
  </form>`;
}

const MEMBERS = ['watch', 'urgent', 'clear'] as const;
type Member = (typeof MEMBERS)[number];
type ThresholdRule = Extract<Catalog['rules'][number], { kind: 'threshold' }>;

/** Alert thresholds of every rule: the catalog's default beside the farm's value, edited in place. */
function Thresholds({ farm }: { farm: Farm }) {
  useStore();
  const catalog = loadedCatalog();
  // Threshold rules only: the rate, silence and roll-up rules (water.leak, device.quiet,
  // group.intake_drop) have other settings (a change and window, a silence), not watch/urgent/clear lines.
  const thresholdRules = catalog.rules.filter((r): r is ThresholdRule => r.kind === 'threshold');
  const ownRules = (farm.settings.rules ?? {}) as RuleSettings;
  const [values, setValues] = useState<Record<string, Record<Member, string>>>(() => {
    const own = ownRules;
    return Object.fromEntries(
      thresholdRules.map((r) => [
        r.name,
        Object.fromEntries(MEMBERS.map((m) => [m, String(own[r.name]?.[m] ?? r[m] ?? '')])) as Record<
          Member,
          string
        >,
      ]),
    );
  });
  const form = useForm(async () => {
    // The other rules' own settings are kept as they are (this table does not edit them).
    const shown = new Set<string>(thresholdRules.map((r) => r.name));
    const rules = Object.fromEntries(Object.entries(ownRules).filter(([name]) => !shown.has(name)));
    for (const rule of thresholdRules) {
      const own = ownRules[rule.name] ?? {};
      const changed: Record<string, unknown> = {};
      for (const m of MEMBERS) {
        const typed = (values[rule.name]?.[m] ?? '').trim();
        const fallback = rule[m];
        if (typed === '' && m === 'urgent') {
          if (fallback !== null) changed.urgent = null;
          continue;
        }
        const n = typed === '' ? fallback : Number(typed);
        if (n !== fallback) changed[m] = typed === '' || Number.isFinite(n) ? n : typed;
      }
      if (own.for_s !== undefined) changed.for_s = own.for_s;
      if (Object.keys(changed).length > 0) rules[rule.name] = changed;
    }
    await saveRules(farm, rules);
    return w('thresholds_saved');
  });
  const errorAt = (rule: string, member: Member) =>
    form.error?.param === `settings.rules.${rule}.${member}` ? form.error : null;
  const placed = form.error?.param && thresholdRules.some((r) => MEMBERS.some((m) => errorAt(r.name, m)));
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="rules-title">
    <h2 id="rules-title">${w('thresholds')}</h2>
    <p class="small muted">${w('thresholds_help')}</p>
    <div class="table-wrap"><table class="records thresholds">
      <caption class="visually-hidden">${w('thresholds_by_rule')}</caption>
      <thead><tr><th scope="col">${w('rule')}</th>${MEMBERS.map((m) => html`<th scope="col">${w(`member.${m}`)}</th>`)}</tr></thead>
      <tbody>${thresholdRules.map(
        (r) => html`<tr key=${r.name}>
          <th scope="row">${r.name}<br /><span class="small muted">${r.metric} · ${r.direction}</span></th>
          ${MEMBERS.map((m) => {
            const id = `rule-${r.name}-${m}`;
            const error = errorAt(r.name, m);
            const value = values[r.name]?.[m] ?? '';
            const overridden = value.trim() !== '' && Number(value) !== r[m];
            const label = w('cell_label', { rule: r.name, member: w(`member.${m}`) });
            return html`<td class="threshold-cell">
              <label class="visually-hidden" for=${id}>${label}</label>
              <span class="cell-name" aria-hidden="true">${w(`member.${m}`)}</span>
              <input id=${id} type="number" step="any" inputmode="decimal" value=${value}
                class=${overridden ? 'override' : ''} aria-invalid=${error ? 'true' : undefined}
                aria-describedby=${error ? `${id}-error` : undefined}
                onInput=${(e: Event) => setValues({ ...values, [r.name]: { ...(values[r.name] as Record<Member, string>), [m]: inputValue(e) } })} />
              <div class="small muted">${w(overridden ? 'default_changed' : 'default', { value: r[m] ?? w('none') })}</div>
              <${ErrorText} error=${error} id=${`${id}-error`} label=${label} />
            </td>`;
          })}
        </tr>`,
      )}</tbody>
    </table></div>
    <${Submit} form=${{ ...form, error: placed ? null : form.error }} label=${w('save_thresholds')} />
  </form>`;
}

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

function Webhooks({ farm }: { farm: Farm }) {
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

function Keys() {
  const keys = useLoad(() => api('GET', '/v1/keys'), []);
  const [made, setMade] = useState<Reply<'POST', '/v1/keys'> | null>(null);
  const form = useForm(async (data, el) => {
    const key = await api('POST', '/v1/keys', {
      body: { name: text(data, 'name') ?? '', mode: data.get('mode') === 'test' ? 'test' : 'live' },
    });
    setMade(key);
    el.reset();
    keys.reload();
    return w('key_created');
  });
  return html`<section class="panel" aria-labelledby="keys-title">
    <h2 id="keys-title">${w('keys')}</h2>
    ${
      !keys.data
        ? html`<${Loading} error=${keys.error} retry=${keys.reload} />`
        : html`<div class="table-wrap"><table class="records">
          <caption class="visually-hidden">${w('keys')}</caption>
          <thead><tr><th scope="col">${w('name')}</th><th scope="col">${w('key')}</th><th scope="col">${w('last_used')}</th><th scope="col"><span class="visually-hidden">${w('revoke')}</span></th></tr></thead>
          <tbody>${keys.data.data.map(
            (
              k,
            ) => html`<tr key=${k.id}><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${ago(k.last_used_at)}</td>
              <td><${ActionButton} label=${w('revoke')} kind="danger" action=${async () => {
                if (!confirm(w('revoke_confirm', { name: k.name }))) return w('kept');
                await api('DELETE', '/v1/keys/{id}', { path: { id: k.id } });
                keys.reload();
                return w('revoked');
              }} /></td></tr>`,
          )}</tbody></table></div>`
    }
    <form onSubmit=${form.onSubmit} aria-label=${w('create_key')}>
      <div class="form-grid">
        <${Field} name="name" label=${w('key_name')} required error=${form.error} idPrefix="key" />
        <${Field} name="mode" label=${w('mode')} type="select" options=${(['live', 'test'] as const).map((m) => [m, w(`mode.${m}`)] as const)} error=${form.error} idPrefix="key" />
      </div>
      <${Submit} form=${form} label=${w('submit_key')} names=${['name', 'mode']} />
    </form>
    ${made?.key && html`<${ShownOnce} title=${w('api_key', { name: made.name })} value=${made.key} />`}
  </section>`;
}

/**
 * A section's module loaded when its section is opened, so each section's first load carries only its own
 * code: the usage chart (uPlot), the escalation chain, the farm form's time zones and the add-a-farm form.
 */
function later<M, P extends object>(load: () => Promise<M>, pick: (module: M) => (props: P) => unknown) {
  return function Later(props: P) {
    const [module, setModule] = useState<M | null>(null);
    const [error, setError] = useState<Problem | null>(null);
    useEffect(() => {
      load().then(setModule, (err: unknown) => setError(problemOf(err)));
    }, []);
    if (!module) return html`<${Loading} error=${error} />`;
    return html`<${pick(module)} ...${props} />`;
  };
}

const Usage = later(
  () => import('../settings-usage.ts'),
  (m) => m.Usage,
);
const EscalationChain = later(
  () => import('../escalation-form.ts'),
  (m) => m.EscalationChain,
);
const TimeZones = later(
  () => import('../farm-form.ts'),
  (m) => m.TimeZones,
);
const NewFarm = later(
  () => import('../farm-form.ts'),
  (m) => m.NewFarm,
);

/** Settings in sections, each at its own address (/settings/<section>); /settings is the farm's. */
const SECTIONS = [
  { id: 'farm' },
  { id: 'rules' },
  { id: 'escalation' },
  { id: 'webhooks' },
  { id: 'keys' },
  { id: 'usage' },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

function SectionNav({ current }: { current: SectionId | null }) {
  const link = (href: string, title: string, here: boolean) =>
    html`<li><a href=${href} aria-current=${here ? 'page' : undefined}>${title}</a></li>`;
  return html`<nav class="sections" aria-label=${w('sections')}><ul>
    ${SECTIONS.map((s) => link(s.id === 'farm' ? '/settings' : `/settings/${s.id}`, w(`section.${s.id}`), s.id === current))}
    ${link('/people', w('people'), false)}
    ${link('/settings/integrations', w('integrations'), false)}
  </ul></nav>`;
}

/** The sections reading the catalog (the rules' defaults, the webhook events): shown once it is loaded. */
function WithCatalog({ children }: { children: ComponentChildren }) {
  const loaded = useLoad(loadCatalog, []);
  return loaded.data ? children : html`<${Loading} error=${loaded.error} retry=${loaded.reload} />`;
}

function Section({ farm, section }: { farm: Farm; section: SectionId }) {
  switch (section) {
    case 'farm':
      return html`<${FarmFacts} key=${farm.id} farm=${farm} /><${NewFarm} />`;
    case 'rules':
      return html`<${WithCatalog}><${Thresholds} key=${`${farm.id}-rules`} farm=${farm} /><//>
        <${BuiltInRules} key=${`${farm.id}-other-rules`} farm=${farm} />`;
    case 'escalation':
      return html`<${EscalationChain} key=${`${farm.id}-escalation`} farm=${farm} />`;
    case 'webhooks':
      return html`<${WithCatalog}><${Webhooks} farm=${farm} /><//>`;
    case 'keys':
      return html`<${Keys} />`;
    case 'usage':
      return html`<${Usage} />`;
  }
}

export function Page({ farm, params }: PageProps) {
  useReader();
  const asked = params.section ?? 'farm';
  const section = SECTIONS.find((s) => s.id === asked);
  return html`<section>
    <h1>${section && section.id !== 'farm' ? w('title_section', { section: w(`section.${section.id}`) }) : w('title')}</h1>
    <${SectionNav} current=${section?.id ?? null} />
    ${section ? html`<${Section} farm=${farm} section=${section.id} />` : html`<p class="panel">${w('no_section')}</p>`}
    <p class="small muted">${w('footer', { farm: farm.name, timezone: farm.timezone, now: farmTime(new Date().toISOString(), farm.timezone) })}</p>
  </section>`;
}
