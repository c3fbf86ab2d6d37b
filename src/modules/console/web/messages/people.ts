/** The people page's words (pages/people.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  title: 'People',
  invite: 'Invite someone',
  email: 'Email',
  role: 'Role',
  inviting: 'Inviting…',
  make_link: 'Make an invite link',
  send_link: 'Send this link to {email}; it works once, until {until}:',
  invite_link: 'Invite link',
  last_signed_in: '{email} · last signed in {ago}',
  make_crew: 'Make crew',
  make_owner: 'Make owner',
  changed: 'Changed',
  remove: 'Remove',
  remove_confirm: 'Remove {email}? They are signed out at once.',
  kept: 'Kept',
  removed: 'Removed',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  title: 'Personas',
  invite: 'Invitar a alguien',
  email: 'Correo electrónico',
  role: 'Rol',
  inviting: 'Invitando…',
  make_link: 'Crear un enlace de invitación',
  send_link: 'Envíe este enlace a {email}; funciona una sola vez, hasta el {until}:',
  invite_link: 'Enlace de invitación',
  last_signed_in: '{email} · último inicio de sesión {ago}',
  make_crew: 'Pasar a personal',
  make_owner: 'Pasar a propietario',
  changed: 'Cambiado',
  remove: 'Quitar',
  remove_confirm: '¿Quitar a {email}? Su sesión se cierra de inmediato.',
  kept: 'Se conservó',
  removed: 'Quitado',
};
