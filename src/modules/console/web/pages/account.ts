/**
 * Your account: who you are signed in as, the agents connected by OAuth (an owner sees every one of the
 * account, anyone else their own; disconnecting one stops it at its next call), and a password change
 * (POST /v1/session/password), which signs out your other sessions. Open to every role (crew change their
 * own password too); reached from your name in the header. Below it, the person's notifications
 * (web/notifications.ts).
 */
import { api } from '../api.ts';
import { Field, fieldError, Submit, useForm } from '../form.ts';
import { type MessageKey, t, words } from '../i18n.ts';
import { html } from '../lib.ts';
import { EN, ES } from '../messages/account.ts';
import { Notifications } from '../notifications.ts';
import { useReader } from '../reader-hook.ts';
import { ReadingForm } from '../reading-form.ts';
import { signedIn, useStore } from '../store.ts';
import { ActionButton, ago, Loading, useLoad } from '../ui.ts';

const w = words(EN, ES);

function ConnectedAgents() {
  const agents = useLoad(() => api('GET', '/v1/agents'), []);
  if (!agents.data) return html`<${Loading} error=${agents.error} retry=${agents.reload} />`;
  if (agents.data.data.length === 0) {
    return html`<p class="muted">${w('no_agents', { url: `${location.origin}/mcp` })}</p>`;
  }
  return html`<ul class="cards agents">
    ${agents.data.data.map(
      (a) => html`<li class="card agent" key=${a.id}>
        <div class="card-head"><h3 class="card-title">${a.client_name}</h3><span class="status">${w(`level.${a.level}`)}</span></div>
        <p class="muted small">${(() => {
          const said = { mode: a.mode, host: a.redirect_host, by: a.connected_by, ago: ago(a.last_used_at) };
          return a.farms ? w('agent_farms', { ...said, count: a.farms.length }) : w('agent_every_farm', said);
        })()}</p>
        <div class="actions"><${ActionButton} label=${w('disconnect')} kind="danger" action=${async () => {
          if (!confirm(w('disconnect_confirm', { name: a.client_name }))) return w('kept');
          await api('DELETE', '/v1/agents/{id}', { path: { id: a.id } });
          agents.reload();
          return w('disconnected');
        }} /></div>
      </li>`,
    )}
  </ul>`;
}

const NAMES = ['current_password', 'new_password', 'repeat_password'];

export function Page() {
  useReader();
  useStore();
  const session = signedIn();
  const form = useForm(async (data, element) => {
    const next = String(data.get('new_password'));
    if (next !== String(data.get('repeat_password'))) {
      throw fieldError(w('differ'), 'repeat_password');
    }
    await api('POST', '/v1/session/password', {
      body: { current_password: String(data.get('current_password')), new_password: next },
    });
    element.reset();
    return w('changed');
  });
  const person = session.person;
  return html`<section class="panel">
    <h1>${w('title')}</h1>
    <dl class="facts account-facts">
      <div><dt>${w('email')}</dt><dd>${person.email}</dd></div>
      <div><dt>${w('role')}</dt><dd>${t(`role.${person.role}` as MessageKey)}</dd></div>
      <div><dt>${w('account')}</dt><dd>${session.account.name}</dd></div>
    </dl>
    <h2>${w('agents')}</h2>
    <${ConnectedAgents} />
    <h2>${w('change_password')}</h2>
    <form onSubmit=${form.onSubmit}>
      <${Field} name="current_password" label=${w('current_password')} type="password" autocomplete="current-password" required error=${form.error} idPrefix="account" />
      <${Field} name="new_password" label=${w('new_password')} type="password" autocomplete="new-password" minlength="10" required error=${form.error} idPrefix="account" />
      <${Field} name="repeat_password" label=${w('repeat_password')} type="password" autocomplete="new-password" required error=${form.error} idPrefix="account" />
      <${Submit} form=${form} label=${w('submit')} names=${NAMES} />
    </form>
  </section>
  <${ReadingForm} />
  <${Notifications} />`;
}
