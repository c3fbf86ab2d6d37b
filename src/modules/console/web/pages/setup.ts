/**
 * A setup or invite link (/setup/<token>): shows whose account it joins, then the person sets their email
 * (when the link has none), name and password, and is signed in. The link works once.
 */

import { ApiError, api, type Body } from '../api.ts';
import { useForm } from '../form.ts';
import { proposedReader } from '../i18n.ts';
import { html } from '../lib.ts';
import { navigate } from '../router.ts';
import { setSession } from '../store.ts';
import { ErrorText, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const MIN_PASSWORD = 10;

export function Page({ params }: PageProps) {
  const token = params.token ?? '';
  const setup = useLoad(() => api('GET', '/v1/setup/{token}', { path: { token } }), [token]);
  const form = useForm(async (data) => {
    const password = String(data.get('password'));
    if (password.length < MIN_PASSWORD) {
      throw new Error(`The password needs at least ${MIN_PASSWORD} characters.`);
    }
    if (password !== String(data.get('confirm'))) {
      throw new Error('The two passwords differ; type the same password twice.');
    }
    // Units and language proposed from the browser's locale; the person changes them on the Account page.
    const body: Body<'POST', '/v1/setup/{token}'> = { password, ...proposedReader() };
    const name = String(data.get('name') ?? '').trim();
    if (name) body.name = name;
    if (!setup.data?.email) body.email = String(data.get('email')).trim();
    setSession(await api('POST', '/v1/setup/{token}', { path: { token }, body }));
    navigate('/', { replace: true });
  });

  if (setup.error instanceof ApiError && setup.error.status === 404) {
    return html`<div class="panel auth"><h1>This link no longer works</h1>
      <p>Setup links work once and for 24 hours. Ask the account's owner for a new one, or run
        <code>npm run cli -- people invite</code> on the server.</p>
      <p><a href="/sign-in">Sign in</a> if you already have a password.</p></div>`;
  }
  if (!setup.data) return html`<${Loading} error=${setup.error} retry=${setup.reload} />`;
  const link = setup.data;

  return html`<div class="panel auth">
    <h1>Set up your sign-in</h1>
    <p>You are joining <strong>${link.account.name}</strong> as <strong>${link.role}</strong>.</p>
    <form onSubmit=${form.onSubmit}>
      <label for="email">Email</label>
      ${
        link.email
          ? html`<input id="email" name="email" type="email" value=${link.email} readonly autocomplete="username" />`
          : html`<input id="email" name="email" type="email" required autocomplete="username" />`
      }
      <label for="name">Your name <span class="muted">(optional)</span></label>
      <input id="name" name="name" type="text" autocomplete="name" />
      <label for="password">Password <span class="muted">(at least ${MIN_PASSWORD} characters)</span></label>
      <input id="password" name="password" type="password" required minlength=${MIN_PASSWORD}
        autocomplete="new-password" />
      <label for="confirm">Password again</label>
      <input id="confirm" name="confirm" type="password" required autocomplete="new-password" />
      <${ErrorText} error=${form.error} id="setup-error" />
      <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? 'Saving…' : 'Save and sign in'}</button>
    </form>
  </div>`;
}
