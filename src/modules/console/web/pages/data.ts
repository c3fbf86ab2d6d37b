/**
 * Data in and out: export buttons (the API streams the file; the browser downloads it with the session
 * cookie) and the animals import — a dry run first, showing every row's errors, then the real import.
 */
import { api, type Problem, query, type Reply } from '../api.ts';
import { typeName } from '../device-type.ts';
import { words } from '../i18n.ts';
import { checkedOf, html, inputValue, useState } from '../lib.ts';
import { EN, ES } from '../messages/data.ts';
import { useReader } from '../reader-hook.ts';
import { can, type Farm } from '../store.ts';
import { ErrorText, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const w = words(EN, ES);

type ImportResult = Reply<'POST', '/v1/farms/{farm}/animals/import'>;

const RECORDS = ['animals', 'events', 'tasks'] as const;

function Exports({ farm }: { farm: Farm }) {
  const devices = useLoad(
    () => api('GET', '/v1/farms/{farm}/devices', { path: { farm: farm.id }, query: { limit: 100 } }),
    [farm.id],
  );
  const [readings, setReadings] = useState({ device: '', format: 'csv', since: '', until: '', metric: '' });
  const set = (name: keyof typeof readings) => (e: Event) =>
    setReadings({ ...readings, [name]: inputValue(e) });
  const deviceId = readings.device || devices.data?.data[0]?.id;
  const readingsUrl =
    deviceId &&
    `/v1/devices/${deviceId}/readings/export${query({
      format: readings.format,
      metric: readings.metric.trim(),
      since: readings.since ? new Date(readings.since).toISOString() : undefined,
      until: readings.until ? new Date(readings.until).toISOString() : undefined,
    })}`;
  return html`<section class="panel" aria-labelledby="export-title">
    <h2 id="export-title">${w('export')}</h2>
    <p class="small muted">${w('formats')}</p>
    <ul class="export-list">${RECORDS.map(
      // The row names the records; each link says its format and, to a screen reader, the records too
      // (a label and two buttons fit one line at 360 px; "Animals NDJSON" did not).
      (kind) => html`<li><strong>${w(kind)}</strong>
        <a class="button secondary" download aria-label=${w('csv', { records: w(kind) })}
          href=${`/v1/farms/${farm.id}/${kind}/export?format=csv`}>CSV</a>
        <a class="button secondary" download aria-label=${w('ndjson', { records: w(kind) })}
          href=${`/v1/farms/${farm.id}/${kind}/export?format=ndjson`}>NDJSON</a></li>`,
    )}</ul>
    <h3>${w('readings')}</h3>
    ${
      !devices.data
        ? html`<${Loading} error=${devices.error} retry=${devices.reload} />`
        : devices.data.data.length === 0
          ? html`<p class="muted">${w('no_devices')}</p>`
          : html`<div class="form-grid">
            <div class="field"><label for="export-device">${w('device')}</label>
              <select id="export-device" onChange=${set('device')}>${devices.data.data.map(
                (d) =>
                  html`<option value=${d.id} selected=${deviceId === d.id}>${w('device_option', { name: d.name, type: typeName(d.type) })}</option>`,
              )}</select></div>
            <div class="field"><label for="export-metric">${w('metric')}</label>
              <input id="export-metric" value=${readings.metric} onInput=${set('metric')} /></div>
            <div class="field"><label for="export-since">${w('from')}</label>
              <input id="export-since" type="datetime-local" value=${readings.since} onChange=${set('since')} /></div>
            <div class="field"><label for="export-until">${w('until')}</label>
              <input id="export-until" type="datetime-local" value=${readings.until} onChange=${set('until')} /></div>
            <div class="field"><label for="export-format">${w('format')}</label>
              <select id="export-format" onChange=${set('format')}><option value="csv">CSV</option><option value="ndjson">NDJSON</option></select></div>
          </div>
          <p><a class="button secondary" download href=${readingsUrl}>${w('export_readings')}</a></p>`
    }
  </section>`;
}

/** "3 rows — 2 added, 0 updated, 0 unchanged, 1 skipped." */
function summary(r: ImportResult): string {
  const counts = {
    count: r.rows,
    created: r.created,
    updated: r.updated,
    unchanged: r.unchanged,
    skipped: r.skipped,
  };
  if (r.dry_run) return w(r.skipped ? 'summary_dry_skipped' : 'summary_dry', counts);
  return w(r.skipped ? 'summary_skipped' : 'summary', counts);
}

function ImportResult({ result }: { result: ImportResult }) {
  const bad = result.errors;
  return html`<div class="import-result" role="status">
    <p><strong>${w('result', { what: w(result.dry_run ? 'preview' : 'imported') })}</strong> ${summary(result)}</p>
    ${
      bad.length > 0 &&
      html`<div class="table-wrap"><table class="records errors">
        <caption>${w(result.dry_run ? 'errors_dry' : 'errors')}</caption>
        <thead><tr><th scope="col">${w('row')}</th><th scope="col">${w('column')}</th><th scope="col">${w('problem')}</th></tr></thead>
        <tbody>${bad.map(
          (e) =>
            html`<tr><td>${w('row_number', { row: e.row })}</td><td>${e.column ?? '—'}</td><td>${e.message}</td></tr>`,
        )}</tbody></table></div>`
    }
  </div>`;
}

function Import({ farm }: { farm: Farm }) {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<ImportResult | null>(null);
  const [done, setDone] = useState<ImportResult | null>(null);
  const [skip, setSkip] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Problem | null>(null);
  const send = async (dryRun: boolean) => {
    if (!file) return;
    setBusy(true);
    setError(null);
    try {
      const text = await file.text();
      const result = await api('POST', '/v1/farms/{farm}/animals/import', {
        path: { farm: farm.id },
        query: { dry_run: dryRun || undefined, skip_invalid: skip || undefined },
        body: text,
        contentType: 'text/csv',
      });
      if (dryRun) setPreview(result);
      else {
        setDone(result);
        setPreview(null);
      }
    } catch (err) {
      setError(problemOf(err));
    } finally {
      setBusy(false);
    }
  };
  const blocked = preview && preview.errors.length > 0 && !skip;
  return html`<section class="panel" aria-labelledby="import-title">
    <h2 id="import-title">${w('import_title')}</h2>
    <p class="small muted">${w('import_help')}</p>
    <div class="field"><label for="import-file">${w('file')}</label>
      <input id="import-file" type="file" accept=".csv,text/csv" onChange=${(e: Event) => {
        setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null);
        setPreview(null);
        setDone(null);
      }} /></div>
    <label class="check"><input type="checkbox" checked=${skip} onChange=${(e: Event) => setSkip(checkedOf(e))} />
      ${w('skip')}</label>
    <div class="actions">
      <button type="button" class="button secondary" disabled=${!file || busy} onClick=${() => send(true)}>${w('preview')}</button>
      <button type="button" class="button primary" disabled=${!preview || blocked || busy} onClick=${() => send(false)}>
        ${busy ? w('working') : w('import')}</button>
    </div>
    ${blocked && html`<p class="small">${w('blocked')}</p>`}
    <${ErrorText} error=${error} />
    ${preview && html`<${ImportResult} result=${preview} />`}
    ${done && html`<${ImportResult} result=${done} />`}
  </section>`;
}

export function Page({ farm }: PageProps) {
  useReader();
  return html`<section>
    <h1>${w('title')}</h1>
    <${Exports} farm=${farm} />
    ${can('animals', 'write') ? html`<${Import} farm=${farm} />` : html`<p class="muted">${w('owner_only')}</p>`}
  </section>`;
}
