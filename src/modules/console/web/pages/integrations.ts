/**
 * Settings → Integrations (owners): the farm's LoRaWAN network servers. Add one and copy its uplink URL and
 * secret with the steps for ChirpStack or The Things Network; adopt the devices it heard that match none;
 * give each device a preset or a mapping, previewed live on its last uplink. The server decides everything
 * (validation, matching, what a mapping stores); this page shows its answers. docs/guide/lorawan.md.
 */
import { api, type Problem, type Reply } from '../api.ts';
import { CopyButton, Field, fieldError, ShownOnce, Submit, text, useForm } from '../form.ts';
import { num, withNodes, words } from '../i18n.ts';
import { html, inputValue, useEffect, useState } from '../lib.ts';
import { EN, ES } from '../messages/integrations.ts';
import { useReader } from '../reader-hook.ts';
import type { Farm } from '../store.ts';
import { ActionButton, ago, ErrorText, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

// The OpenAPI document names no integration schema, so the records are the operations' answers.
type Integration = Reply<'GET', '/v1/farms/{farm}/integrations'>['data'][number];
type NewIntegration = Reply<'POST', '/v1/farms/{farm}/integrations'>;
type IntegrationType = Integration['type'];
type Preset = Reply<'GET', '/v1/integration-presets'>['data'][number];
type Heard = Reply<'GET', '/v1/integrations/{id}/unmatched'>['data'][number];
type Adopted = Reply<'POST', '/v1/integrations/{id}/unmatched/{eui}/adopt'>;
type Link = Reply<'GET', '/v1/integrations/{id}/devices'>['data'][number];
type Mapping = NonNullable<Link['mapping']>;
type MappingPreview = Reply<'POST', '/v1/devices/{id}/lorawan/preview'>['preview'];

/** Every network server the API offers (its registry's names): a new one fails to compile until named here. */
const w = words(EN, ES);

const TYPES: Record<IntegrationType, string> = {
  chirpstack: 'ChirpStack (v4)',
  ttn: 'The Things Network / The Things Stack (v3)',
};

/** What mapping applies to a device now (DeviceLink's `effective.source`). */
const APPLIES = {
  device: 'applies_device',
  default: 'applies_default',
  none: 'applies_none',
} as const satisfies Record<Link['effective']['source'], keyof typeof EN>;

/** A linked device's last uplink: when, and how well it was heard. */
function heardLast(last: Link['last_uplink']): string {
  if (!last) return w('no_uplink');
  const db = (value: number | null | undefined) =>
    value === null || value === undefined ? '–' : num(value, 1);
  return w('last_uplink', { ago: ago(last.at), rssi: db(last.rssi), snr: db(last.snr) });
}

/** The message of a mapping that does not parse as JSON. */
function notJson(error: unknown): string {
  return w('not_json', { why: error instanceof Error ? error.message : String(error) });
}

type StepsProps = {
  url: string;
  bearer: string;
  secret: string | null | undefined;
  webhookId: string | null;
};

/** A set-up step: the reader's sentence, the network server's own labels (English, as its console spells them) inside. */
function placed(key: StepKey, nodes: Record<string, unknown>) {
  return withNodes(nodes, (marks) => w(key, marks));
}

type StepKey = keyof typeof EN & (`cs_${string}` | `ttn_${string}`);

const strong = (label: string) => html`<strong>${label}</strong>`;
const code = (value: string) => html`<code>${value}</code>`;

/** Each network server's set-up steps, with the URL and secret where they are pasted. */
const STEPS: Record<IntegrationType, (p: StepsProps) => unknown> = {
  chirpstack: ({ url, bearer, secret }) => html`<ol class="steps small">
      <li>${placed('cs_open', { path: strong(w('cs_path')), plus: strong('+') })}</li>
      <li>${placed('cs_encoding', { label: strong('Payload encoding') })}</li>
      <li>${placed('cs_url', { label: strong('Event endpoint URL(s)'), url: code(url) })} <${CopyButton} value=${url} label=${w('copy_url')} /></li>
      <li>${placed('cs_headers', { label: strong('Headers'), name: code('Authorization'), value: code(bearer) })} ${secret && html`<${CopyButton} value=${bearer} label=${w('copy_header')} />`}</li>
      <li>${placed('cs_submit', { codec: strong('Codec') })}</li>
      <li>${placed('cs_commands', { keys: strong('Tenant → API keys') })}</li>
    </ol>`,
  ttn: ({ url, bearer, secret, webhookId }) => html`<ol class="steps small">
    <li>${placed('ttn_open', { path: strong(w('ttn_path')) })}</li>
    <li>${placed('ttn_id', { label: strong('Webhook ID'), id: webhookId ? code(webhookId) : w('ttn_id_here'), format: strong('Webhook format') })}</li>
    <li>${placed('ttn_url', { label: strong('Base URL'), url: code(url) })} <${CopyButton} value=${url} label=${w('copy_url')} /></li>
    <li>${placed('ttn_headers', { label: strong('Additional headers'), name: code('Authorization'), value: code(bearer) })} ${secret && html`<${CopyButton} value=${bearer} label=${w('copy_header')} />`}</li>
    <li>${placed('ttn_events', { label: strong('Enabled event types') })}</li>
    <li>${placed('ttn_commands', { right: html`<em>Write downlink application traffic</em>`, example: code('https://eu1.cloud.thethings.network') })}</li>
  </ol>`,
};

/** The set-up steps for the integration's network server. */
function SetupSteps({
  integration,
  secret,
}: {
  integration: Integration | NewIntegration;
  secret: string | null | undefined;
}) {
  return STEPS[integration.type]({
    url: integration.uplink_url,
    bearer: `Bearer ${secret ?? w('the_secret')}`,
    secret,
    webhookId: integration.webhook_id,
  });
}

function AddIntegration({ farm, onAdded }: { farm: Farm; onAdded(): void }) {
  const [type, setType] = useState<IntegrationType>('chirpstack');
  const [made, setMade] = useState<NewIntegration | null>(null);
  const form = useForm(async (data, el) => {
    const optional = (name: string) => text(data, name) ?? undefined;
    const created = await api('POST', '/v1/farms/{farm}/integrations', {
      path: { farm: farm.id },
      body: {
        type,
        name: text(data, 'name') ?? '',
        api_url: optional('api_url'),
        api_key: optional('api_key'),
        ...(type === 'ttn'
          ? { application_id: optional('application_id'), webhook_id: optional('webhook_id') }
          : {}),
      },
    });
    setMade(created);
    el.reset();
    onAdded();
    return w('added');
  });
  const p = { error: form.error, idPrefix: 'integration' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="add-integration-title">
    <h2 id="add-integration-title">${w('add')}</h2>
    <div class="form-grid">
      <div class="field"><label for="integration-type">${w('server')}</label>
        <select id="integration-type" name="type" value=${type} onChange=${(e: Event) => setType(inputValue(e) as IntegrationType)}>
          ${Object.entries(TYPES).map(([v, label]) => html`<option value=${v}>${label}</option>`)}
        </select></div>
      <${Field} name="name" label=${w('name')} required placeholder=${w('name_placeholder')} ...${p} />
      <${Field} name="api_url" label=${w('api_url')} type="url" placeholder=${type === 'ttn' ? 'https://eu1.cloud.thethings.network' : 'https://chirpstack.example.com:8090'} ...${p} />
      <${Field} name="api_key" label=${w('api_key')} type="password" autocomplete="off" ...${p} />
      ${
        type === 'ttn' &&
        html`<${Field} name="application_id" label=${w('application_id')} ...${p} />
        <${Field} name="webhook_id" label=${w('webhook_id')} placeholder="farmstead" ...${p} />`
      }
    </div>
    <${Submit} form=${form} label=${w('submit')} names=${['name', 'api_url', 'api_key', 'application_id', 'webhook_id']} />
    ${
      made &&
      html`<${ShownOnce} title=${w('uplink_secret')} value=${made.secret ?? ''}>
      <p class="small">${w('uplink_url')} <code>${made.uplink_url}</code> <${CopyButton} value=${made.uplink_url} label=${w('copy_url')} /></p>
      <${SetupSteps} integration=${made} secret=${made.secret} />
    <//>`
    }
  </form>`;
}

function Adopt({
  integration,
  heard,
  presets,
  onAdopted,
}: {
  integration: Integration;
  heard: Heard;
  presets: Preset[];
  onAdopted(device: Adopted): void;
}) {
  const form = useForm(async (data) => {
    const preset = text(data, 'preset') ?? undefined;
    const device = await api('POST', '/v1/integrations/{id}/unmatched/{eui}/adopt', {
      path: { id: integration.id, eui: heard.dev_eui },
      body: { preset, name: text(data, 'name') ?? undefined },
    });
    // The card leaves the list (the DevEUI is a device now): the key and the news are shown above it.
    onAdopted(device);
    return w('adopted_as', { name: device.name });
  });
  const id = `adopt-${heard.dev_eui}`;
  return html`<li class="card">
    <div class="card-head"><h4 class="card-title">${heard.device_name ?? heard.dev_eui}</h4>
      <span class="small muted">${w('heard', { eui: heard.dev_eui, count: heard.uplinks, ago: ago(heard.last_seen_at) })}</span></div>
    ${heard.decoded && html`<pre class="example"><code>${JSON.stringify(heard.decoded, null, 2)}</code></pre>`}
    <form onSubmit=${form.onSubmit} aria-label=${w('adopt_named', { eui: heard.dev_eui })}>
      <div class="form-grid">
        <${Field} name="name" label=${w('device_name')} value=${heard.device_name ?? ''} error=${form.error} idPrefix=${id} />
        <${Field} name="preset" label=${w('preset')} type="select" value="" error=${form.error} idPrefix=${id}
          options=${[['', w('preset_none')], ...presets.map((p) => [p.name, p.title])]} />
      </div>
      <${Submit} form=${form} label=${w('adopt')} names=${['name', 'preset']} />
    </form>
  </li>`;
}

/** Readings as the mapping stores the last uplink. */
function Preview({ preview }: { preview: MappingPreview | null | undefined }) {
  if (!preview) return null;
  const extra = [
    preview.battery !== undefined && w('battery', { pct: num(preview.battery, 1) }),
    preview.lat !== undefined && w('position', { lat: num(preview.lat, 6), lon: num(preview.lon ?? 0, 6) }),
    ...preview.events.map((e) => w('event', { type: e.type })),
  ].filter(Boolean);
  return html`<div class="table-wrap"><table class="records">
    <caption class="small muted">${extra.length ? w('stored_as_also', { extra: extra.join(', ') }) : w('stored_as')}</caption>
    <thead><tr><th scope="col">${w('metric')}</th><th scope="col">${w('value')}</th></tr></thead>
    <tbody>${preview.readings.map((r) => html`<tr key=${r.metric}><td>${r.metric}</td><td>${num(r.value, 3)}</td></tr>`)}</tbody>
  </table></div>`;
}

function DeviceMapping({
  integration,
  link,
  presets,
  onSaved,
}: {
  integration: Integration;
  link: Link;
  presets: Preset[];
  onSaved(): void;
}) {
  const [preset, setPreset] = useState(link.preset ?? '');
  const [mappingText, setMappingText] = useState(link.mapping ? JSON.stringify(link.mapping, null, 2) : '');
  const [preview, setPreview] = useState<{ data: MappingPreview | null | undefined; error: Problem | null }>({
    data: link.preview,
    error: null,
  });
  // A live preview of the typed mapping on the last uplink, asked of the server a moment after typing stops.
  useEffect(() => {
    const shown =
      mappingText.trim() ||
      (preset ? JSON.stringify(presets.find((p) => p.name === preset)?.mapping ?? {}) : '');
    if (!shown) return undefined;
    const timer = setTimeout(async () => {
      try {
        const mapping = JSON.parse(shown) as Mapping;
        const answer = await api('POST', '/v1/devices/{id}/lorawan/preview', {
          path: { id: link.device_id },
          body: { mapping },
        });
        setPreview({ data: answer.preview, error: null });
      } catch (error) {
        setPreview((p) => ({
          data: p.data,
          error: error instanceof SyntaxError ? new Error(notJson(error)) : problemOf(error),
        }));
      }
    }, 400);
    return () => clearTimeout(timer);
  }, [mappingText, preset]);
  const form = useForm(async () => {
    let mapping: Mapping | null = null;
    if (mappingText.trim()) {
      try {
        mapping = JSON.parse(mappingText) as Mapping;
      } catch (error) {
        throw fieldError(notJson(error), 'mapping');
      }
    }
    await api('PUT', '/v1/devices/{id}/lorawan', {
      path: { id: link.device_id },
      body: { integration_id: integration.id, preset: preset || null, mapping },
    });
    onSaved();
    return w('mapping_saved');
  });
  const id = `map-${link.device_id}`;
  return html`<li class="card">
    <div class="card-head"><h4 class="card-title"><a href=${`/devices/${link.device_id}`}>${link.device_name}</a></h4>
      <span class="small muted">DevEUI <code>${link.dev_eui}</code> · ${heardLast(link.last_uplink)} · ${w(APPLIES[link.effective.source])}</span></div>
    <form onSubmit=${form.onSubmit} aria-label=${w('mapping_of', { name: link.device_name })}>
      <div class="field"><label for=${`${id}-preset`}>${w('preset')}</label>
        <select id=${`${id}-preset`} value=${preset} onChange=${(e: Event) => setPreset(inputValue(e))}>
          <option value="">${w('none')}</option>
          ${presets.map((p) => html`<option value=${p.name}>${p.title}</option>`)}
        </select></div>
      <div class="field"><label for=${`${id}-mapping`}>${w('mapping')}</label>
        <textarea id=${`${id}-mapping`} rows="6" value=${mappingText} spellcheck="false"
          placeholder='{"distance": {"metric": "water.tank_pct", "scale": -0.05, "offset": 100}}'
          onInput=${(e: Event) => setMappingText(inputValue(e))}></textarea>
        <${ErrorText} error=${form.error} /></div>
      ${
        link.last_uplink?.decoded &&
        html`<details><summary class="small">${w('last_decoded')}</summary>
        <pre class="example"><code>${JSON.stringify(link.last_uplink.decoded, null, 2)}</code></pre></details>`
      }
      <${ErrorText} error=${preview.error} />
      <${Preview} preview=${preview.data} />
      <${Submit} form=${{ ...form, error: null }} label=${w('save_mapping')} />
    </form>
  </li>`;
}

function IntegrationCard({
  integration,
  presets,
  onChanged,
}: {
  integration: Integration;
  presets: Preset[];
  onChanged(): void;
}) {
  const [secret, setSecret] = useState<string | null>(null);
  const [adopted, setAdopted] = useState<Adopted | null>(null);
  const unmatched = useLoad(
    () => api('GET', '/v1/integrations/{id}/unmatched', { path: { id: integration.id } }),
    [integration.id],
  );
  const devices = useLoad(
    () => api('GET', '/v1/integrations/{id}/devices', { path: { id: integration.id } }),
    [integration.id],
  );
  const onAdopted = (device: Adopted) => {
    setAdopted(device);
    unmatched.reload();
    devices.reload();
  };
  return html`<li class="card" id=${integration.id}>
    <div class="card-head"><h3 class="card-title">${integration.name}</h3>
      <span class="small muted">${TYPES[integration.type]} · ${w('secret_prefix', { prefix: integration.secret_prefix })} · ${integration.api_url ? w('commands_via', { url: integration.api_url }) : w('uplinks_only')}</span></div>
    <p class="small">${w('uplink_url')} <code>${integration.uplink_url}</code> <${CopyButton} value=${integration.uplink_url} label=${w('copy_url')} /></p>
    <details><summary class="small">${w('set_up')}</summary><${SetupSteps} integration=${integration} secret=${secret} /></details>
    <div class="actions">
      <${ActionButton} label=${w('rotate')} action=${async () => {
        if (!confirm(w('rotate_confirm'))) return w('kept');
        const rotated = await api('POST', '/v1/integrations/{id}/secret', { path: { id: integration.id } });
        setSecret(rotated.secret ?? null);
        return w('rotated');
      }} />
      <${ActionButton} label=${w('delete')} kind="danger" action=${async () => {
        if (!confirm(w('delete_confirm', { name: integration.name }))) return w('kept');
        await api('DELETE', '/v1/integrations/{id}', { path: { id: integration.id } });
        onChanged();
        return w('deleted');
      }} />
    </div>
    ${secret && html`<${ShownOnce} title=${w('new_secret')} value=${secret} />`}
    <h4>${w('heard_title')}</h4>
    ${adopted && html`<${ShownOnce} title=${w('adopted_key', { name: adopted.name })} value=${adopted.device_key} />`}
    ${
      !unmatched.data
        ? html`<${Loading} error=${unmatched.error} retry=${unmatched.reload} />`
        : unmatched.data.data.length === 0
          ? html`<p class="muted small">${w('all_devices')}</p>`
          : html`<ul class="cards">${unmatched.data.data.map((u) => html`<${Adopt} key=${u.dev_eui} integration=${integration} heard=${u} presets=${presets} onAdopted=${onAdopted} />`)}</ul>`
    }
    <h4>${w('devices')}</h4>
    ${
      !devices.data
        ? html`<${Loading} error=${devices.error} retry=${devices.reload} />`
        : devices.data.data.length === 0
          ? html`<p class="muted small">${w('no_device', { serial: 'eui:<DevEUI>' })}</p>`
          : html`<ul class="cards">${devices.data.data.map((l) => html`<${DeviceMapping} key=${l.device_id} integration=${integration} link=${l} presets=${presets} onSaved=${devices.reload} />`)}</ul>`
    }
  </li>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const list = useLoad(
    () => api('GET', '/v1/farms/{farm}/integrations', { path: { farm: farm.id }, query: { limit: 100 } }),
    [farm.id],
  );
  const presets = useLoad(() => api('GET', '/v1/integration-presets'), []);
  const presetList = presets.data?.data ?? [];
  return html`<section>
    <h1>${w('title')}</h1>
    <p class="muted">${w('intro', { farm: farm.name })} <a href="/settings">${w('back')}</a></p>
    ${
      !list.data || !presets.data
        ? html`<${Loading} error=${list.error ?? presets.error} retry=${() => {
            list.reload();
            presets.reload();
          }} />`
        : html`<ul class="cards">${list.data.data.map((i) => html`<${IntegrationCard} key=${i.id} integration=${i} presets=${presetList} onChanged=${list.reload} />`)}</ul>`
    }
    <${AddIntegration} farm=${farm} onAdded=${list.reload} />
  </section>`;
}
