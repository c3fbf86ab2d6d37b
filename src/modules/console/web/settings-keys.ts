/**
 * The Settings page's API keys section. Its own module, loaded when the section is opened, so the other
 * sections of Settings do not carry it.
 */
import { api, type Reply } from './api.ts';
import { Field, ShownOnce, Submit, text, useForm } from './form.ts';
import { words } from './i18n.ts';
import { html, useState } from './lib.ts';
import { EN, ES } from './messages/settings-keys.ts';
import { ActionButton, ago, Loading, useLoad } from './ui.ts';

const w = words(EN, ES);

/** The account's API keys: created (shown once), revoked, when last used. */
export function Keys() {
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
        : html`<div class="table-wrap"><table class="records as-cards">
          <caption class="visually-hidden">${w('keys')}</caption>
          <thead><tr><th scope="col">${w('name')}</th><th scope="col">${w('key')}</th><th scope="col">${w('last_used')}</th><th scope="col"><span class="visually-hidden">${w('revoke')}</span></th></tr></thead>
          <tbody>${keys.data.data.map(
            (
              k,
            ) => html`<tr key=${k.id}><td class="card-title">${k.name}</td><td data-label=${w('key')}><code>${k.prefix}…</code></td><td data-label=${w('last_used')}>${ago(k.last_used_at)}</td>
              <td class="card-span"><${ActionButton} label=${w('revoke')} kind="danger" action=${async () => {
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
