/** Sign in with email and password (POST /v1/session); then back to the page that asked for it. */
import { api } from '../api.ts';
import { useForm } from '../form.ts';
import { t } from '../i18n.ts';
import { html } from '../lib.ts';
import { useReader } from '../reader-hook.ts';
import { navigate } from '../router.ts';
import { setSession } from '../store.ts';
import { ErrorText } from '../ui.ts';

/** Where to go after signing in: the `next` page when it is a path on this site, else the brief. */
function nextPage() {
  const next = new URLSearchParams(location.search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function Page() {
  // Before sign-in the browser's language chooses the words (web/i18n.ts).
  useReader();
  const form = useForm(async (data) => {
    const session = await api('POST', '/v1/session', {
      body: { email: String(data.get('email')).trim(), password: String(data.get('password')) },
    });
    setSession(session);
    navigate(nextPage(), { replace: true });
  });
  return html`<div class="panel auth">
    <h1>${t('sign_in.title')}</h1>
    <form onSubmit=${form.onSubmit} novalidate=${false}>
      <label for="email">${t('sign_in.email')}</label>
      <input id="email" name="email" type="email" autocomplete="username" required />
      <label for="password">${t('sign_in.password')}</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <${ErrorText} error=${form.error} id="sign-in-error" />
      <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? t('sign_in.busy') : t('sign_in.submit')}</button>
    </form>
    <p class="muted small">${t('sign_in.no_password', { command: 'npm run cli -- people invite' })}</p>
  </div>`;
}
