/**
 * People (owners only; the API refuses crew anyway): who can sign in to the account, invites as one-time
 * setup links, role changes and removal. The last owner cannot be removed or demoted (the API says so).
 */
import { api, type Reply } from '../api.ts';
import { useForm } from '../form.ts';
import { type MessageKey, reader, t, words } from '../i18n.ts';
import { html, useState } from '../lib.ts';
import { EN, ES } from '../messages/people.ts';
import { useReader } from '../reader-hook.ts';
import { signedIn, useStore } from '../store.ts';
import { ActionButton, ago, ErrorText, Loading, useLoad } from '../ui.ts';

const w = words(EN, ES);
const role = (name: string) => t(`role.${name}` as MessageKey);

function Invite({ onInvited }: { onInvited(): void }) {
  const [invite, setInvite] = useState<Reply<'POST', '/v1/people/invites'> | null>(null);
  const form = useForm(async (data) => {
    setInvite(
      await api('POST', '/v1/people/invites', {
        body: {
          email: String(data.get('email')).trim(),
          role: data.get('role') === 'owner' ? 'owner' : 'crew',
        },
      }),
    );
    onInvited();
  });
  return html`<form class="panel invite" onSubmit=${form.onSubmit}>
    <h2>${w('invite')}</h2>
    <label for="invite-email">${w('email')}</label>
    <input id="invite-email" name="email" type="email" required />
    <label for="invite-role">${w('role')}</label>
    <select id="invite-role" name="role"><option value="crew">${role('crew')}</option><option value="owner">${role('owner')}</option></select>
    <${ErrorText} error=${form.error} />
    <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? w('inviting') : w('make_link')}</button>
    ${
      invite &&
      html`<div class="invite-link" role="status"><p>${w('send_link', { email: invite.email, until: new Date(invite.expires_at).toLocaleString(reader.locale) })}</p><input readonly value=${invite.url} aria-label=${w('invite_link')}
        onFocus=${(e: FocusEvent) => (e.currentTarget as HTMLInputElement).select()} /></div>`
    }
  </form>`;
}

export function Page() {
  useReader();
  useStore();
  const session = signedIn();
  const people = useLoad(() => api('GET', '/v1/people'), []);
  if (!people.data) return html`<${Loading} error=${people.error} retry=${people.reload} />`;
  return html`<section>
    <h1>${w('title')}</h1>
    <ul class="cards">
      ${people.data.data.map(
        (p) => html`<li class="card person" key=${p.id}>
          <div class="card-head"><h2 class="card-title">${p.name ?? p.email}</h2><span class="status">${role(p.role)}</span></div>
          <p class="muted small">${w('last_signed_in', { email: p.email, ago: ago(p.last_sign_in_at) })}</p>
          ${
            p.id !== session.person.id &&
            html`<div class="actions">
              <${ActionButton} label=${p.role === 'owner' ? w('make_crew') : w('make_owner')} action=${async () => {
                await api('PATCH', '/v1/people/{id}', {
                  path: { id: p.id },
                  body: { role: p.role === 'owner' ? 'crew' : 'owner' },
                });
                people.reload();
                return w('changed');
              }} />
              <${ActionButton} label=${w('remove')} kind="danger" action=${async () => {
                if (!confirm(w('remove_confirm', { email: p.email }))) return w('kept');
                await api('DELETE', '/v1/people/{id}', { path: { id: p.id } });
                people.reload();
                return w('removed');
              }} />
            </div>`
          }
        </li>`,
      )}
    </ul>
    <${Invite} onInvited=${people.reload} />
  </section>`;
}
