/**
 * Your account: who you are signed in as, and a password change (POST /v1/session/password), which signs
 * out your other sessions. Open to every role (crew change their own password too); reached from your name
 * in the header. Below it, the person's notifications (web/notifications.ts).
 */
import { api } from '../api.ts';
import { Field, fieldError, Submit, useForm } from '../form.ts';
import { html } from '../lib.ts';
import { Notifications } from '../notifications.ts';
import { signedIn, useStore } from '../store.ts';

const NAMES = ['current_password', 'new_password', 'repeat_password'];

export function Page() {
  useStore();
  const session = signedIn();
  const form = useForm(async (data, element) => {
    const next = String(data.get('new_password'));
    if (next !== String(data.get('repeat_password'))) {
      throw fieldError('The two new passwords differ; type the same one twice.', 'repeat_password');
    }
    await api('POST', '/v1/session/password', {
      body: { current_password: String(data.get('current_password')), new_password: next },
    });
    element.reset();
    return 'Password changed. Your other sessions are signed out; this one stays.';
  });
  const person = session.person;
  return html`<section class="panel">
    <h1>Your account</h1>
    <dl class="facts account-facts">
      <div><dt>Email</dt><dd>${person.email}</dd></div>
      <div><dt>Role</dt><dd>${person.role}</dd></div>
      <div><dt>Account</dt><dd>${session.account.name}</dd></div>
    </dl>
    <h2>Change your password</h2>
    <form onSubmit=${form.onSubmit}>
      <${Field} name="current_password" label="Current password" type="password" autocomplete="current-password" required error=${form.error} idPrefix="account" />
      <${Field} name="new_password" label="New password (at least 10 characters)" type="password" autocomplete="new-password" minlength="10" required error=${form.error} idPrefix="account" />
      <${Field} name="repeat_password" label="New password again" type="password" autocomplete="new-password" required error=${form.error} idPrefix="account" />
      <${Submit} form=${form} label="Change password" names=${NAMES} />
    </form>
  </section>
  <${Notifications} />`;
}
