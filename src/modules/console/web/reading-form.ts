/**
 * The Account page's units and language (PATCH /v1/me): what the console, emails, pushes and ntfy messages
 * speak to this person. Saved, the console switches at once (web/i18n.ts).
 */
import { api } from './api.ts';
import { Field, Submit, text, useForm } from './form.ts';
import { setReader, t } from './i18n.ts';
import { html } from './lib.ts';
import { useReader } from './reader-hook.ts';
import { signedIn, state, update } from './store.ts';

/** Each language named in itself, as language menus do. */
const LANGUAGE_NAMES: [string, string][] = [
  ['en', 'English'],
  ['es', 'Español'],
];

export function ReadingForm() {
  const reader = useReader();
  const form = useForm(async (data) => {
    const units = text(data, 'units') === 'us' ? 'us' : 'metric';
    const language = text(data, 'language') === 'es' ? 'es' : 'en';
    const person = await api('PATCH', '/v1/me', { body: { units, language } });
    const session = state.session ?? signedIn();
    update({ session: { ...session, person } });
    await setReader(person);
    return t('account.reading_saved');
  });
  const p = { error: form.error, idPrefix: 'reading' };
  return html`<form class="panel" onSubmit=${form.onSubmit} aria-labelledby="reading-title">
    <h2 id="reading-title">${t('account.reading')}</h2>
    <div class="form-grid">
      <${Field} name="units" label=${t('account.units')} type="select" value=${reader.units}
        options=${[['metric', t('account.units_metric')], ['us', t('account.units_us')]]} ...${p} />
      <${Field} name="language" label=${t('account.language')} type="select" value=${reader.language}
        options=${LANGUAGE_NAMES} ...${p} />
    </div>
    <${Submit} form=${form} label=${t('account.save_reading')} names=${['units', 'language']} />
  </form>`;
}
