/**
 * Adding a farm (POST /v1/farms): its name, time zone, position and acres. The time zone starts as this
 * browser's own (the farmer is usually at the farm, or in its zone), and can be changed or left blank for the
 * server's choice. Shown on the "No farm yet" panel and on the Settings page.
 */
import { api } from './api.ts';
import { areaFromField, areaLabel } from './area-field.ts';
import { Field, number, Submit, text, useForm } from './form.ts';
import { t } from './i18n.ts';
import { html } from './lib.ts';
import { loadFarms } from './store.ts';

/** This browser's IANA time zone, or null when it names none (an old browser, a stripped-down one). */
export function browserTimeZone(): string | null {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || null;
  } catch {
    return null;
  }
}

/** The IANA zones the browser knows, for the time zone field's suggestions. */
export function TimeZones({ id }: { id: string }) {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return html`<datalist id=${id}>${zones.map((tz) => html`<option value=${tz} />`)}</datalist>`;
}

const NAMES = ['name', 'timezone', 'lat', 'lon', 'acres'];

/** The form adding a farm; the new farm becomes the chosen one. */
export function NewFarm({ title = t('farm_form.title') }: { title?: string }) {
  const zone = browserTimeZone();
  const form = useForm(async (data, el) => {
    const timezone = text(data, 'timezone');
    const farm = await api('POST', '/v1/farms', {
      body: {
        name: text(data, 'name') ?? '',
        // Blank: the server's choice (the zone of the farm's position when it has one).
        ...(timezone ? { timezone } : {}),
        lat: number(data, 'lat') ?? null,
        lon: number(data, 'lon') ?? null,
        acres: areaFromField(data, 'acres') ?? null,
      },
    });
    el.reset();
    await loadFarms(farm.id);
    return t('farm_form.added', { name: farm.name, timezone: farm.timezone });
  });
  const p = { error: form.error, idPrefix: 'new-farm' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="new-farm-title">
    <h2 id="new-farm-title">${title}</h2>
    <div class="form-grid">
      <${Field} name="name" label=${t('farm_form.name')} required ...${p} />
      <${Field} name="timezone" label=${t('farm_form.timezone')} value=${zone} list="new-farm-zones" ...${p} />
      <${Field} name="lat" label=${t('farm_form.lat')} type="number" step="any" min="-90" max="90" ...${p} />
      <${Field} name="lon" label=${t('farm_form.lon')} type="number" step="any" min="-180" max="180" ...${p} />
      <${Field} name="acres" label=${areaLabel()} type="number" step="any" min="0" ...${p} />
    </div>
    <p class="small muted">${zone ? t('farm_form.zone_hint', { zone }) : t('farm_form.blank_hint')}</p>
    <${TimeZones} id="new-farm-zones" />
    <${Submit} form=${form} label=${t('farm_form.submit')} names=${NAMES} />
  </form>`;
}
