/**
 * Settings (owners; the navigation hides the page from crew and the API refuses them anyway), in sections
 * each at its own address: the farm's facts and adding a farm (/settings), its alert thresholds as a table
 * (threshold-settings.ts) with the water, silence and intake rules (rule-settings.ts) (/settings/rules), the
 * escalation chain (/settings/escalation), webhooks with their delivery log (/settings/webhooks,
 * settings-webhooks.ts), API keys (/settings/keys, settings-keys.ts), and the account's usage as a chart
 * (/settings/usage, settings-usage.ts). Each section's modules load when it is opened. People have their
 * own page.
 */
import { api, type Problem } from '../api.ts';
import { areaFieldValue, areaFromField, areaLabel } from '../area-field.ts';
import { Field, number, Submit, text, useForm } from '../form.ts';
import { words } from '../i18n.ts';
import { type ComponentChildren, html, useEffect, useState } from '../lib.ts';
import { EN, ES } from '../messages/settings.ts';
import { useReader } from '../reader-hook.ts';
import { type Farm, loadCatalog, state, update } from '../store.ts';
import { farmTime, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

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
        acres: areaFromField(data, 'acres'),
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
      <${Field} name="acres" label=${areaLabel()} type="number" step="any" min="0" value=${areaFieldValue(farm.acres)} ...${p} />
    </div>
    <${TimeZones} id="timezones" />
    <${Submit} form=${form} label=${w('save_farm')} names=${['name', 'timezone', 'lat', 'lon', 'acres']} />
  </form>`;
}

/**
 * A section's module loaded when its section is opened, so each section's first load carries only its own
 * code: the thresholds table and the water, silence and intake rules, the usage chart (uPlot), the escalation
 * chain, the webhooks, the API keys, the farm form's time zones and the add-a-farm form.
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
const Thresholds = later(
  () => import('../threshold-settings.ts'),
  (m) => m.Thresholds,
);
const BuiltInRules = later(
  () => import('./rule-settings.ts'),
  (m) => m.BuiltInRules,
);
const Webhooks = later(
  () => import('../settings-webhooks.ts'),
  (m) => m.Webhooks,
);
const Keys = later(
  () => import('../settings-keys.ts'),
  (m) => m.Keys,
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
      return html`<${Thresholds} key=${`${farm.id}-rules`} farm=${farm} />
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
