/**
 * Settings (owners; the navigation hides the page from crew and the API refuses them anyway), in sections
 * each at its own address: the farm's facts and adding a farm (/settings), its alert thresholds as a table
 * (defaults beside overrides, the API's error on the cell it names) with the water, silence and intake rules
 * (rule-settings.ts) (/settings/rules), the escalation chain (/settings/escalation), webhooks with their
 * delivery log (/settings/webhooks), API keys (/settings/keys), and the account's usage as a chart
 * (/settings/usage, settings-usage.ts, loaded when opened). People have their own page.
 */
import { api, type Problem, type Reply, type Schema } from '../api.ts';
import { EscalationChain } from '../escalation-form.ts';
import { NewFarm, TimeZones } from '../farm-form.ts';
import { Field, number, ShownOnce, Submit, text, useForm } from '../form.ts';
import { type ComponentChildren, html, inputValue, useEffect, useState } from '../lib.ts';
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
    return 'Saved';
  });
  const p = { error: form.error, idPrefix: 'farm' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="farm-title">
    <h2 id="farm-title">Farm</h2>
    <div class="form-grid">
      <${Field} name="name" label="Name" value=${farm.name} required ...${p} />
      <${Field} name="timezone" label="Time zone" value=${farm.timezone} list="timezones" required ...${p} />
      <${Field} name="lat" label="Latitude" type="number" step="any" min="-90" max="90" value=${farm.lat} ...${p} />
      <${Field} name="lon" label="Longitude" type="number" step="any" min="-180" max="180" value=${farm.lon} ...${p} />
      <${Field} name="acres" label="Acres" type="number" step="any" min="0" value=${farm.acres} ...${p} />
    </div>
    <${TimeZones} id="timezones" />
    <${Submit} form=${form} label="Save farm" names=${['name', 'timezone', 'lat', 'lon', 'acres']} />
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
    return 'Thresholds saved';
  });
  const errorAt = (rule: string, member: Member) =>
    form.error?.param === `settings.rules.${rule}.${member}` ? form.error : null;
  const placed = form.error?.param && thresholdRules.some((r) => MEMBERS.some((m) => errorAt(r.name, m)));
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="rules-title">
    <h2 id="rules-title">Alert thresholds</h2>
    <p class="small muted">A reading at or beyond <em>watch</em> opens an alert, at <em>urgent</em> it is urgent, and
      back past <em>clear</em> it resolves. Blank means the default.</p>
    <div class="table-wrap"><table class="records thresholds">
      <caption class="visually-hidden">Alert thresholds by rule</caption>
      <thead><tr><th scope="col">Rule</th>${MEMBERS.map((m) => html`<th scope="col">${m}</th>`)}</tr></thead>
      <tbody>${thresholdRules.map(
        (r) => html`<tr key=${r.name}>
          <th scope="row">${r.name}<br /><span class="small muted">${r.metric} · ${r.direction}</span></th>
          ${MEMBERS.map((m) => {
            const id = `rule-${r.name}-${m}`;
            const error = errorAt(r.name, m);
            const value = values[r.name]?.[m] ?? '';
            const overridden = value.trim() !== '' && Number(value) !== r[m];
            return html`<td class="threshold-cell">
              <label class="visually-hidden" for=${id}>${r.name} ${m}</label>
              <span class="cell-name" aria-hidden="true">${m}</span>
              <input id=${id} type="number" step="any" inputmode="decimal" value=${value}
                class=${overridden ? 'override' : ''} aria-invalid=${error ? 'true' : undefined}
                aria-describedby=${error ? `${id}-error` : undefined}
                onInput=${(e: Event) => setValues({ ...values, [r.name]: { ...(values[r.name] as Record<Member, string>), [m]: inputValue(e) } })} />
              <div class="small muted">default ${r[m] ?? 'none'}${overridden ? ' · changed' : ''}</div>
              <${ErrorText} error=${error} id=${`${id}-error`} />
            </td>`;
          })}
        </tr>`,
      )}</tbody>
    </table></div>
    <${Submit} form=${{ ...form, error: placed ? null : form.error }} label="Save thresholds" />
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
  return html`<fieldset class="checks"><legend>Events</legend>
    <label><input type="checkbox" id=${`${idPrefix}-all`} checked=${all} onChange=${() => onChange(all ? [] : ['*'])} />Every event</label>
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
    <div class="actions"><h4>Delivery log</h4>
      <button type="button" class="button link" onClick=${deliveries.reload}>Refresh</button></div>
    ${deliveries.data.data.length === 0 && html`<p class="muted small">Nothing delivered yet.</p>`}
    <ul class="history">${deliveries.data.data.map(
      (d) => html`<li key=${d.id}>
        <span class="when">${ago(d.created_at)}</span> <strong>${d.event_type}</strong>
        <span class=${`status ${d.status === 'succeeded' ? 'resolved' : d.status === 'failed' ? 'expired' : ''}`}>${d.status}</span>
        <ul class="attempts">${d.attempts.map(
          (a) =>
            html`<li>Attempt ${a.number}${a.trigger === 'manual' ? ' (manual)' : ''}: ${
              a.status_code !== null ? `HTTP ${a.status_code}` : 'no answer'
            }${a.error ? ` — ${a.error}` : ''} · ${a.duration_ms} ms</li>`,
        )}</ul>
        ${
          d.status !== 'pending' &&
          html`<${ActionButton} label="Retry" action=${async () => {
            await api('POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', {
              path: { id: webhook.id, delivery_id: d.id },
            });
            deliveries.reload();
            return 'Retried';
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
    return 'Events saved';
  });
  return html`<li class="card" id=${webhook.id}>
    <div class="card-head"><h3 class="card-title">${webhook.url}</h3>
      <span class=${`status ${webhook.status === 'enabled' ? 'resolved' : 'expired'}`}>${webhook.status}</span></div>
    ${webhook.disabled_reason && html`<p class="error">${webhook.disabled_reason}</p>`}
    <form onSubmit=${saveEvents.onSubmit}>
      <${EventChecks} chosen=${events} onChange=${setEvents} idPrefix=${webhook.id} />
      <${Submit} form=${saveEvents} label="Save events" names=${['events']} />
    </form>
    <div class="actions">
      <${ActionButton} label="Send test event" action=${async () => {
        const delivery = await api('POST', '/v1/webhooks/{id}/test', { path: { id: webhook.id } });
        setLog((n) => n + 1);
        return delivery.status === 'succeeded'
          ? `Test event delivered (HTTP ${delivery.last_status_code})`
          : `Test event failed: ${delivery.last_error ?? `HTTP ${delivery.last_status_code}`}`;
      }} />
      <${ActionButton} label="Delete" kind="danger" action=${async () => {
        if (!confirm(`Delete the webhook to ${webhook.url}?`)) return 'Kept';
        await api('DELETE', '/v1/webhooks/{id}', { path: { id: webhook.id } });
        onChanged();
        return 'Deleted';
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
    return 'Webhook added';
  });
  return html`<section class="panel" aria-labelledby="hooks-title">
    <h2 id="hooks-title">Webhooks</h2>
    ${
      !hooks.data
        ? html`<${Loading} error=${hooks.error} retry=${hooks.reload} />`
        : html`<ul class="cards">${hooks.data.data.map((w) => html`<${WebhookCard} key=${w.id} webhook=${w} onChanged=${hooks.reload} />`)}</ul>`
    }
    <form onSubmit=${add.onSubmit} aria-label="Add a webhook">
      <h3>Add a webhook</h3>
      <${Field} name="url" label="URL" type="url" required error=${add.error} idPrefix="hook" placeholder="https://example.com/farmstead" />
      <${EventChecks} chosen=${events} onChange=${setEvents} idPrefix="hook-new" />
      <${Submit} form=${add} label="Add webhook" names=${['url', 'events']} />
    </form>
    ${secret && html`<${ShownOnce} title="Signing secret" value=${secret} />`}
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
    return 'Key created';
  });
  return html`<section class="panel" aria-labelledby="keys-title">
    <h2 id="keys-title">API keys</h2>
    ${
      !keys.data
        ? html`<${Loading} error=${keys.error} retry=${keys.reload} />`
        : html`<div class="table-wrap"><table class="records">
          <caption class="visually-hidden">API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Revoke</span></th></tr></thead>
          <tbody>${keys.data.data.map(
            (
              k,
            ) => html`<tr key=${k.id}><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${ago(k.last_used_at)}</td>
              <td><${ActionButton} label="Revoke" kind="danger" action=${async () => {
                if (!confirm(`Revoke ${k.name}? Anything using it stops working at once.`)) return 'Kept';
                await api('DELETE', '/v1/keys/{id}', { path: { id: k.id } });
                keys.reload();
                return 'Revoked';
              }} /></td></tr>`,
          )}</tbody></table></div>`
    }
    <form onSubmit=${form.onSubmit} aria-label="Create an API key">
      <div class="form-grid">
        <${Field} name="name" label="Key name" required error=${form.error} idPrefix="key" />
        <${Field} name="mode" label="Mode" type="select" options=${['live', 'test']} error=${form.error} idPrefix="key" />
      </div>
      <${Submit} form=${form} label="Create key" names=${['name', 'mode']} />
    </form>
    ${made?.key && html`<${ShownOnce} title=${`API key ${made.name}`} value=${made.key} />`}
  </section>`;
}

/** The usage chart's module (uPlot): loaded when the Usage section is opened, so the others stay light. */
function Usage() {
  const [chart, setChart] = useState<typeof import('../settings-usage.ts') | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  useEffect(() => {
    import('../settings-usage.ts').then(setChart, (err: unknown) => setError(problemOf(err)));
  }, []);
  if (!chart) return html`<${Loading} error=${error} />`;
  return html`<${chart.Usage} />`;
}

/** Settings in sections, each at its own address (/settings/<section>); /settings is the farm's. */
const SECTIONS = [
  { id: 'farm', title: 'Farm' },
  { id: 'rules', title: 'Thresholds and rules' },
  { id: 'escalation', title: 'Escalation' },
  { id: 'webhooks', title: 'Webhooks' },
  { id: 'keys', title: 'API keys' },
  { id: 'usage', title: 'Usage' },
] as const;

type SectionId = (typeof SECTIONS)[number]['id'];

function SectionNav({ current }: { current: SectionId | null }) {
  const link = (href: string, title: string, here: boolean) =>
    html`<li><a href=${href} aria-current=${here ? 'page' : undefined}>${title}</a></li>`;
  return html`<nav class="sections" aria-label="Settings sections"><ul>
    ${SECTIONS.map((s) => link(s.id === 'farm' ? '/settings' : `/settings/${s.id}`, s.title, s.id === current))}
    ${link('/people', 'People', false)}
    ${link('/settings/integrations', 'Integrations', false)}
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
  const asked = params.section ?? 'farm';
  const section = SECTIONS.find((s) => s.id === asked);
  return html`<section>
    <h1>Settings${section && section.id !== 'farm' ? `: ${section.title}` : ''}</h1>
    <${SectionNav} current=${section?.id ?? null} />
    ${section ? html`<${Section} farm=${farm} section=${section.id} />` : html`<p class="panel">No such settings section: choose one above.</p>`}
    <p class="small muted">For ${farm.name}; times in ${farm.timezone}, now ${farmTime(new Date().toISOString(), farm.timezone)}.</p>
  </section>`;
}
