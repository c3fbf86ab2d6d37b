/**
 * A setup or invite link (/setup/<token>): shows whose account it joins, then the person sets their email
 * (when the link has none), name and password, and is signed in. The link works once.
 */

import { ApiError, api, type Body } from '../api.ts';
import { useForm } from '../form.ts';
import { type MessageKey, proposedReader, t, words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/setup.ts';
import { useReader } from '../reader-hook.ts';
import { navigate } from '../router.ts';
import { setSession } from '../store.ts';
import { ErrorText, Loading, useLoad } from '../ui.ts';
import type { PageProps } from './page.ts';

const MIN_PASSWORD = 10;
const w = words(EN, ES);

export function Page({ params }: PageProps) {
  useReader();
  const token = params.token ?? '';
  const setup = useLoad(() => api('GET', '/v1/setup/{token}', { path: { token } }), [token]);
  const form = useForm(async (data) => {
    const password = String(data.get('password'));
    if (password.length < MIN_PASSWORD) {
      throw new Error(w('short', { count: MIN_PASSWORD }));
    }
    if (password !== String(data.get('confirm'))) {
      throw new Error(w('differ'));
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
    return html`<div class="panel auth"><h1>${w('gone_title')}</h1>
      <p>${w('gone', { command: 'npm run cli -- people invite' })}</p>
      <p><a href="/sign-in">${w('sign_in')}</a> ${w('sign_in_hint')}</p></div>`;
  }
  if (!setup.data) return html`<${Loading} error=${setup.error} retry=${setup.reload} />`;
  const link = setup.data;

  return html`<div class="panel auth">
    <h1>${w('title')}</h1>
    <p>${w('joining', { account: link.account.name, role: t(`role.${link.role}` as MessageKey) })}</p>
    <form onSubmit=${form.onSubmit}>
      <label for="email">${w('email')}</label>
      ${
        link.email
          ? html`<input id="email" name="email" type="email" value=${link.email} readonly autocomplete="username" />`
          : html`<input id="email" name="email" type="email" required autocomplete="username" />`
      }
      <label for="name">${w('name')} <span class="muted">${w('optional')}</span></label>
      <input id="name" name="name" type="text" autocomplete="name" />
      <label for="password">${w('password')} <span class="muted">${w('at_least', { count: MIN_PASSWORD })}</span></label>
      <input id="password" name="password" type="password" required minlength=${MIN_PASSWORD}
        autocomplete="new-password" />
      <label for="confirm">${w('again')}</label>
      <input id="confirm" name="confirm" type="password" required autocomplete="new-password" />
      <${ErrorText} error=${form.error} id="setup-error" />
      <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? w('saving') : w('submit')}</button>
    </form>
  </div>`;
}
