/** The account page's words besides units and language (pages/account.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  'level.read': 'read only',
  'level.record': 'read and record',
  'level.full': 'full',
  no_agents:
    'No agents connected. Add this server to Claude or ChatGPT by its URL ({url}) and they ask you here.',
  agent_farms: {
    one: '{mode} · {count} farm · via {host} · by {by} · last used {ago}',
    other: '{mode} · {count} farms · via {host} · by {by} · last used {ago}',
  },
  agent_every_farm: '{mode} · every farm · via {host} · by {by} · last used {ago}',
  disconnect: 'Disconnect',
  disconnect_confirm: 'Disconnect {name}? It stops working at once.',
  kept: 'Kept',
  disconnected: 'Disconnected',
  differ: 'The two new passwords differ; type the same one twice.',
  changed: 'Password changed. Your other sessions are signed out; this one stays.',
  title: 'Your account',
  email: 'Email',
  role: 'Role',
  account: 'Account',
  agents: 'Connected agents',
  change_password: 'Change your password',
  current_password: 'Current password',
  new_password: 'New password (at least 10 characters)',
  repeat_password: 'New password again',
  submit: 'Change password',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  'level.read': 'solo lectura',
  'level.record': 'lectura y registro',
  'level.full': 'completo',
  no_agents:
    'No hay agentes conectados. Agregue este servidor a Claude o ChatGPT con su URL ({url}) y le pedirán permiso aquí.',
  agent_farms: {
    one: '{mode} · {count} granja · vía {host} · por {by} · último uso {ago}',
    other: '{mode} · {count} granjas · vía {host} · por {by} · último uso {ago}',
  },
  agent_every_farm: '{mode} · todas las granjas · vía {host} · por {by} · último uso {ago}',
  disconnect: 'Desconectar',
  disconnect_confirm: '¿Desconectar {name}? Deja de funcionar de inmediato.',
  kept: 'Se conservó',
  disconnected: 'Desconectado',
  differ: 'Las dos contraseñas nuevas no coinciden; escriba la misma dos veces.',
  changed: 'Contraseña cambiada. Sus otras sesiones se cerraron; esta sigue abierta.',
  title: 'Mi cuenta',
  email: 'Correo electrónico',
  role: 'Rol',
  account: 'Cuenta',
  agents: 'Agentes conectados',
  change_password: 'Cambiar su contraseña',
  current_password: 'Contraseña actual',
  new_password: 'Contraseña nueva (al menos 10 caracteres)',
  repeat_password: 'Repita la contraseña nueva',
  submit: 'Cambiar la contraseña',
};
