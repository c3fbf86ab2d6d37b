/**
 * People (owners only; the API refuses crew anyway): who can sign in to the account, invites as one-time
 * setup links, role changes and removal. The last owner cannot be removed or demoted (the API says so).
 */
import { api, type Reply } from '../api.ts';
import { useForm } from '../form.ts';
import { html, useState } from '../lib.ts';
import { signedIn, useStore } from '../store.ts';
import { ActionButton, ago, ErrorText, Loading, useLoad } from '../ui.ts';

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
    <h2>Invite someone</h2>
    <label for="invite-email">Email</label>
    <input id="invite-email" name="email" type="email" required />
    <label for="invite-role">Role</label>
    <select id="invite-role" name="role"><option value="crew">crew</option><option value="owner">owner</option></select>
    <${ErrorText} error=${form.error} />
    <button type="submit" class="button primary" disabled=${form.busy}>${form.busy ? 'Inviting…' : 'Make an invite link'}</button>
    ${
      invite &&
      html`<div class="invite-link" role="status"><p>Send this link to ${invite.email}; it works once, until
        ${new Date(invite.expires_at).toLocaleString()}:</p><input readonly value=${invite.url} aria-label="Invite link"
        onFocus=${(e: FocusEvent) => (e.currentTarget as HTMLInputElement).select()} /></div>`
    }
  </form>`;
}

export function Page() {
  useStore();
  const session = signedIn();
  const people = useLoad(() => api('GET', '/v1/people'), []);
  if (!people.data) return html`<${Loading} error=${people.error} retry=${people.reload} />`;
  return html`<section>
    <h1>People</h1>
    <ul class="cards">
      ${people.data.data.map(
        (p) => html`<li class="card person" key=${p.id}>
          <div class="card-head"><h2 class="card-title">${p.name ?? p.email}</h2><span class="status">${p.role}</span></div>
          <p class="muted small">${p.email} · last signed in ${ago(p.last_sign_in_at)}</p>
          ${
            p.id !== session.person.id &&
            html`<div class="actions">
              <${ActionButton} label=${p.role === 'owner' ? 'Make crew' : 'Make owner'} action=${async () => {
                await api('PATCH', '/v1/people/{id}', {
                  path: { id: p.id },
                  body: { role: p.role === 'owner' ? 'crew' : 'owner' },
                });
                people.reload();
                return 'Changed';
              }} />
              <${ActionButton} label="Remove" kind="danger" action=${async () => {
                if (!confirm(`Remove ${p.email}? They are signed out at once.`)) return 'Kept';
                await api('DELETE', '/v1/people/{id}', { path: { id: p.id } });
                people.reload();
                return 'Removed';
              }} />
            </div>`
          }
        </li>`,
      )}
    </ul>
    <${Invite} onInvited=${people.reload} />
  </section>`;
}
