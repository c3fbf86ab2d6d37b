/** Sign in with email and password (POST /v1/session); then back to the page that asked for it. */
import { api } from '../api.ts';
import { useForm } from '../form.ts';
import { html } from '../lib.ts';
import { navigate } from '../router.ts';
import { setSession } from '../store.ts';
import { ErrorText } from '../ui.ts';

/** Where to go after signing in: the `next` page when it is a path on this site, else the brief. */
function nextPage() {
  const next = new URLSearchParams(location.search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/';
}

export function Page() {
  const form = useForm(async (data) => {
    const session = await api('POST', '/v1/session', {
      body: { email: String(data.get('email')).trim(), password: String(data.get('password')) },
    });
    setSession(session);
    navigate(nextPage(), { replace: true });
  });
  return html`<div class="panel auth">
    <h1>Sign in to Farmstead</h1>
    <form onSubmit=${form.onSubmit} novalidate=${false}>
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      <${ErrorText} error=${form.error} id="sign-in-error" />
      <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
    <p class="muted small">No password yet, or lost it? Ask the account's owner for a setup link
      (<code>npm run cli -- people invite</code> prints one).</p>
  </div>`;
}
