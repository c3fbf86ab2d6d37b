/**
 * The Map page's import panel (web/pages/map.ts), loaded when it is opened.
 */
import { api, type Reply } from './api.ts';
import type { FarmMap } from './farm-map.ts';
import { words } from './i18n.ts';
import { html, useState } from './lib.ts';
import { Sheet } from './map-view.ts';
import { EN, ES } from './messages/map-import.ts';
import type { Farm } from './store.ts';
import { ActionButton, amount, ErrorText, problemOf } from './ui.ts';

const w = words(EN, ES);

type ImportPreview = Extract<Reply<'POST', '/v1/farms/{farm}/paddocks/import'>, { dry_run: true }>['data'];

/**
 * Importing paddocks from a file (GeoJSON, KML from Google Earth, GPX from a GPS): the file is read in the
 * browser and sent as a dry run; the preview lists each feature (created, skipped or refused, with why)
 * and draws the outlines; Create stores them all, or none.
 */
export function ImportSheet({
  farm,
  map,
  onClose,
  onDone,
}: {
  farm: Farm;
  map: FarmMap;
  onClose(): void;
  onDone(): void;
}) {
  const [file, setFile] = useState<{ name: string; content: string } | null>(null);
  const [preview, setPreview] = useState<ImportPreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<number | null>(null);
  const pick = async (event: Event) => {
    const chosen = (event.currentTarget as HTMLInputElement).files?.[0];
    setPreview(null);
    setCreated(null);
    setError(null);
    map.showPreview([]);
    if (!chosen) return;
    try {
      const content = await chosen.text();
      setFile({ name: chosen.name, content });
      const answer = await api('POST', '/v1/farms/{farm}/paddocks/import', {
        path: { farm: farm.id },
        body: { content, dry_run: true },
      });
      const rows = 'dry_run' in answer && answer.dry_run ? (answer.data as ImportPreview) : [];
      setPreview(rows);
      map.showPreview(rows.flatMap((r) => (r.geometry && r.action !== 'skip' ? [r.geometry] : [])));
    } catch (err) {
      setError(err);
    }
  };
  const toCreate = preview?.filter((r) => r.action === 'create').length ?? 0;
  const refused = preview?.filter((r) => r.action === 'refuse').length ?? 0;
  const warned = preview?.filter((r) => r.warnings.length > 0).length ?? 0;
  const create = async () => {
    if (!file) return null;
    const answer = await api('POST', '/v1/farms/{farm}/paddocks/import', {
      path: { farm: farm.id },
      body: { content: file.content },
    });
    map.showPreview([]);
    setPreview(null);
    setCreated(answer.data.length);
    onDone();
    return null;
  };
  return html`<${Sheet} title=${w('title')} onClose=${onClose}>
    <p>${w('help')}</p>
    <div class="field"><label for="import-paddocks">${w('file')}</label>
      <input id="import-paddocks" type="file" accept=".geojson,.json,.kml,.gpx" onChange=${pick} /></div>
    <${ErrorText} error=${error ? problemOf(error) : null} />
    ${created !== null && html`<p class="done" role="status">${w('created', { count: created })}</p>`}
    ${
      preview &&
      html`<table class="records import-preview" aria-label=${w('in_file')}>
      <thead><tr><th scope="col">${w('name')}</th><th scope="col">${w('acres')}</th><th scope="col">${w('result')}</th></tr></thead>
      <tbody>${preview.map(
        (r) => html`<tr key=${r.index} class=${r.action === 'refuse' ? 'late' : ''}>
          <td>${r.name}</td><td>${amount(r.acres)}</td>
          <td>${w(`action.${r.action}`)}${r.problem ? `: ${r.problem}` : ''}
            ${r.warnings.length > 0 && html`<ul class="import-warnings">${r.warnings.map((warning) => html`<li>${w('check', { warning })}</li>`)}</ul>`}</td></tr>`,
      )}</tbody></table>
      ${warned > 0 && html`<p class="warning" role="status">${w('warned', { count: warned })}</p>`}
      ${refused > 0 && html`<p class="error" role="alert">${w('refused', { count: refused })}</p>`}
      <div class="actions">
        <${ActionButton} label=${w('create', { count: toCreate })} kind="primary"
          disabled=${toCreate === 0 || refused > 0} action=${create} />
      </div>`
    }
  <//>`;
}
