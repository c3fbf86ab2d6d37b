/**
 * Data in and out: export buttons (the API streams the file; the browser downloads it with the session
 * cookie) and the animals import — a dry run first, showing every row's errors, then the real import.
 */
import { api, type Problem, query, type Reply } from '../api.ts';
import { checkedOf, html, inputValue, useState } from '../lib.ts';
import { can, type Farm } from '../store.ts';
import { ErrorText, Loading, problemOf, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

type ImportResult = Reply<'POST', '/v1/farms/{farm}/animals/import'>;

const RECORDS = [
  ['animals', 'Animals'],
  ['events', 'Events'],
  ['tasks', 'Tasks'],
];

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
    <h2 id="export-title">Export</h2>
    <p class="small muted">CSV opens in a spreadsheet; NDJSON (one JSON object a line) suits programs.</p>
    <ul class="export-list">${RECORDS.map(
      ([kind, label]) => html`<li><strong>${label}</strong>
        <a class="button secondary" download href=${`/v1/farms/${farm.id}/${kind}/export?format=csv`}>${label} CSV</a>
        <a class="button secondary" download href=${`/v1/farms/${farm.id}/${kind}/export?format=ndjson`}>${label} NDJSON</a></li>`,
    )}</ul>
    <h3>Device readings</h3>
    ${
      !devices.data
        ? html`<${Loading} error=${devices.error} retry=${devices.reload} />`
        : devices.data.data.length === 0
          ? html`<p class="muted">No devices yet.</p>`
          : html`<div class="form-grid">
            <div class="field"><label for="export-device">Device</label>
              <select id="export-device" onChange=${set('device')}>${devices.data.data.map(
                (d) =>
                  html`<option value=${d.id} selected=${deviceId === d.id}>${d.name} (${d.type})</option>`,
              )}</select></div>
            <div class="field"><label for="export-metric">Metric (blank for all)</label>
              <input id="export-metric" value=${readings.metric} onInput=${set('metric')} /></div>
            <div class="field"><label for="export-since">From</label>
              <input id="export-since" type="datetime-local" value=${readings.since} onChange=${set('since')} /></div>
            <div class="field"><label for="export-until">Until</label>
              <input id="export-until" type="datetime-local" value=${readings.until} onChange=${set('until')} /></div>
            <div class="field"><label for="export-format">Format</label>
              <select id="export-format" onChange=${set('format')}><option value="csv">CSV</option><option value="ndjson">NDJSON</option></select></div>
          </div>
          <p><a class="button secondary" download href=${readingsUrl}>Export readings</a></p>`
    }
  </section>`;
}

/** "3 rows — 2 added, 0 updated, 0 unchanged, 1 skipped." */
function summary(r: ImportResult): string {
  const verbs = r.dry_run ? ['to add', 'to update'] : ['added', 'updated'];
  const skipped = r.skipped ? `, ${r.skipped} skipped` : '';
  return `${r.rows} rows — ${r.created} ${verbs[0]}, ${r.updated} ${verbs[1]}, ${r.unchanged} unchanged${skipped}.`;
}

function ImportResult({ result }: { result: ImportResult }) {
  const bad = result.errors;
  return html`<div class="import-result" role="status">
    <p><strong>${result.dry_run ? 'Preview' : 'Imported'}:</strong> ${summary(result)}</p>
    ${
      bad.length > 0 &&
      html`<div class="table-wrap"><table class="records errors">
        <caption>Rows with errors${result.dry_run ? ' (fix them, or import the others only)' : ''}</caption>
        <thead><tr><th scope="col">Row</th><th scope="col">Column</th><th scope="col">Problem</th></tr></thead>
        <tbody>${bad.map(
          (e) => html`<tr><td>Row ${e.row}</td><td>${e.column ?? '—'}</td><td>${e.message}</td></tr>`,
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
    <h2 id="import-title">Import animals</h2>
    <p class="small muted">A CSV with the columns of the animals export (any of them, in any order). Rows whose
      <code>eid</code>, else <code>tag</code>, match an animal update it; the others add animals. Nothing is stored
      until you import after the preview.</p>
    <div class="field"><label for="import-file">CSV file</label>
      <input id="import-file" type="file" accept=".csv,text/csv" onChange=${(e: Event) => {
        setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null);
        setPreview(null);
        setDone(null);
      }} /></div>
    <label class="check"><input type="checkbox" checked=${skip} onChange=${(e: Event) => setSkip(checkedOf(e))} />
      Import the good rows and skip rows with errors</label>
    <div class="actions">
      <button type="button" class="button secondary" disabled=${!file || busy} onClick=${() => send(true)}>Preview</button>
      <button type="button" class="button primary" disabled=${!preview || blocked || busy} onClick=${() => send(false)}>
        ${busy ? 'Working…' : 'Import'}</button>
    </div>
    ${blocked && html`<p class="small">One bad row stops the whole import: fix the file, or tick “skip rows with errors”.</p>`}
    <${ErrorText} error=${error} />
    ${preview && html`<${ImportResult} result=${preview} />`}
    ${done && html`<${ImportResult} result=${done} />`}
  </section>`;
}

export function Page({ farm }: PageProps) {
  return html`<section>
    <h1>Data</h1>
    <${Exports} farm=${farm} />
    ${can('animals', 'write') ? html`<${Import} farm=${farm} />` : html`<p class="muted">Importing needs an owner.</p>`}
  </section>`;
}
