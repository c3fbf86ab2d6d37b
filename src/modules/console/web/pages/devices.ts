/**
 * Devices: type, battery and last report, quiet ones highlighted (the brief decides what is quiet, from each
 * device's usual reporting interval), and adding a device: its key is shown once, with a copy button and a
 * one-line `curl` report that uses it.
 */
import { DEVICE_TYPES, type DeviceType } from '../../../../domain/device-types.ts';
import { api, type Body, type Reply } from '../api.ts';
import { typeName } from '../device-type.ts';
import { Field, fieldError, number, ShownOnce, Submit, text, useForm } from '../form.ts';
import { words } from '../i18n.ts';
import { html, inputValue, useState } from '../lib.ts';
import { EN, ES } from '../messages/devices.ts';
import { useReader } from '../reader-hook.ts';
import { choices, Pager, type Places, usePager, usePlaces } from '../records.ts';
import { can, type Farm } from '../store.ts';
import { useFarmStream } from '../stream.ts';
import { ago, amount, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const w = words(EN, ES);

/** A metric each type of device typically reports, for the example report. */
const EXAMPLE_METRIC: Partial<Record<string, [string, number]>> = {
  house: ['climate.temp_c', 21.5],
  bolus: ['body.temp_c', 38.9],
  water: ['water.tank_pct', 80],
  weather: ['climate.temp_c', 18.2],
  reader: ['weight.kg', 412],
};

/** One line a farmer can paste into a terminal to send a report as the device. */
export function curlExample(key: string, type: string): string {
  const [metric, value] = EXAMPLE_METRIC[type] ?? ['device.battery_pct', 97];
  const body = JSON.stringify({ readings: [{ metric, value }] });
  return `curl -X POST ${location.origin}/v1/ingest -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" -d '${body}'`;
}

/** A device key shown once, with the curl example. */
export function DeviceKey({
  deviceKey,
  type,
  title = w('device_key'),
}: {
  deviceKey: string;
  type: string;
  title?: string;
}) {
  return html`<${ShownOnce} title=${title} value=${deviceKey}>
    <p class="small">${w('send_report')}</p>
    <pre class="example"><code>${curlExample(deviceKey, type)}</code></pre>
  <//>`;
}

function AddDevice({ farm, places, onAdded }: { farm: Farm; places: Places; onAdded(): void }) {
  const [open, setOpen] = useState(false);
  const [added, setAdded] = useState<Reply<'POST', '/v1/farms/{farm}/devices'> | null>(null);
  const form = useForm(async (data, el) => {
    const body: Body<'POST', '/v1/farms/{farm}/devices'> = {
      // The select offers DEVICE_TYPES only.
      type: String(data.get('type')) as DeviceType,
      name: text(data, 'name') ?? '',
    };
    for (const name of ['serial', 'firmware', 'group_id'] as const) {
      const value = text(data, name);
      if (value) body[name] = value;
    }
    for (const name of ['lat', 'lon'] as const) {
      const value = number(data, name);
      if (value !== null && value !== undefined) body[name] = value;
    }
    const tag = text(data, 'animal_tag');
    if (tag) {
      const found = await api('GET', '/v1/farms/{farm}/animals', {
        path: { farm: farm.id },
        query: { tag, limit: 1 },
      });
      const animal = found.data[0];
      if (!animal) throw fieldError(w('no_tag', { tag }), 'animal_tag');
      body.animal_id = animal.id;
    }
    const device = await api('POST', '/v1/farms/{farm}/devices', { path: { farm: farm.id }, body });
    setAdded(device);
    el.reset();
    onAdded();
    return w('added', { name: device.name });
  });
  if (!open) {
    return html`<button type="button" class="button primary" onClick=${() => setOpen(true)}>${w('add')}</button>`;
  }
  const p = { error: form.error, idPrefix: 'dev' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="add-device-title">
    <h2 id="add-device-title">${w('add')}</h2>
    <div class="form-grid">
      <${Field} name="type" label=${w('type')} type="select" options=${DEVICE_TYPES.map((t) => [t, typeName(t)] as const)} value="tag" ...${p} />
      <${Field} name="name" label=${w('name')} required ...${p} />
      <${Field} name="serial" label=${w('serial_number')} ...${p} />
      <${Field} name="firmware" label=${w('firmware')} ...${p} />
      <${Field} name="animal_tag" label=${w('animal_tag')} ...${p} />
      <${Field} name="group_id" label=${w('group')} type="select" options=${choices(places.groups)} ...${p} />
      <${Field} name="lat" label=${w('lat')} type="number" step="any" ...${p} />
      <${Field} name="lon" label=${w('lon')} type="number" step="any" ...${p} />
    </div>
    <${Submit} form=${form} label=${w('submit')} names=${['type', 'name', 'serial', 'firmware', 'animal_tag', 'animal_id', 'group_id', 'lat', 'lon']} />
    ${added?.device_key && html`<${DeviceKey} deviceKey=${added.device_key} type=${added.type} title=${w('key_of', { name: added.name })} />`}
    <button type="button" class="button link" onClick=${() => setOpen(false)}>${w('close')}</button>
  </form>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  const places = usePlaces(farm.id);
  const [type, setType] = useState<DeviceType | ''>('');
  const pager = usePager(type);
  const devices = useLoad(
    () =>
      api('GET', '/v1/farms/{farm}/devices', {
        path: { farm: farm.id },
        query: { type: type || undefined, limit: 50, before: pager.before },
      }),
    [farm.id, type, pager.before],
  );
  const brief = useLoad(() => api('GET', '/v1/farms/{farm}/brief', { path: { farm: farm.id } }), [farm.id]);
  useFarmStream(farm.id, ['device.created'], () => devices.reload());
  if (!places.data) return html`<${Loading} error=${places.error} retry=${places.reload} />`;
  const quiet = new Set(
    (brief.data?.items ?? []).filter((i) => i.kind === 'device_quiet').map((i) => i.subject_id),
  );
  return html`<section>
    <h1>${w('title')}</h1>
    <div class="filters"><div class="field"><label for="device-type">${w('type')}</label>
      <select id="device-type" onChange=${(e: Event) => setType(inputValue(e) as DeviceType | '')}>
        ${[['', w('any')], ...DEVICE_TYPES.map((t) => [t, typeName(t)])].map(([v, t]) => html`<option value=${v} selected=${type === v}>${t}</option>`)}
      </select></div></div>
    ${can('devices', 'write') && html`<${AddDevice} farm=${farm} places=${places.data} onAdded=${devices.reload} />`}
    ${
      !devices.data
        ? html`<${Loading} error=${devices.error} retry=${devices.reload} />`
        : html`<div class="table-wrap"><table class="records as-cards">
          <caption class="visually-hidden">${w('title')}</caption>
          <thead><tr><th scope="col">${w('name')}</th><th scope="col">${w('type')}</th><th scope="col" class="num">${w('battery')}</th>
            <th scope="col">${w('last_report')}</th><th scope="col" class="wide">${w('key')}</th></tr></thead>
          <tbody>${devices.data.data.map(
            (d) => html`<tr key=${d.id} id=${d.id} class=${quiet.has(d.id) ? 'quiet' : ''}>
              <td class="card-title"><a href=${`/devices/${d.id}`}>${d.name}</a></td><td>${typeName(d.type)}</td>
              <td class="num" data-label=${w('battery')}>${amount(d.battery, '%')}</td>
              <td class="card-span" data-label=${w('last_report')}>${quiet.has(d.id) ? html`<strong>${w('quiet')}</strong> · ` : ''}${ago(d.last_seen_at)}</td>
              <td class="wide"><code>${d.key_prefix}…</code></td>
            </tr>`,
          )}</tbody>
        </table></div>
        ${devices.data.data.length === 0 && html`<p class="muted">${w('none')}</p>`}
        <${Pager} pager=${pager} page=${devices.data} />`
    }
  </section>`;
}
