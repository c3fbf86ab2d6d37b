/** The settings page's API keys section's words (settings-keys.ts) (web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  name: 'Name',
  kept: 'Kept',
  key_created: 'Key created',
  keys: 'API keys',
  key: 'Key',
  last_used: 'Last used',
  revoke: 'Revoke',
  revoke_confirm: 'Revoke {name}? Anything using it stops working at once.',
  revoked: 'Revoked',
  create_key: 'Create an API key',
  key_name: 'Key name',
  mode: 'Mode',
  'mode.live': 'live',
  'mode.test': 'test',
  submit_key: 'Create key',
  api_key: 'API key {name}',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  name: 'Nombre',
  kept: 'Se conservó',
  key_created: 'Clave creada',
  keys: 'Claves de API',
  key: 'Clave',
  last_used: 'Último uso',
  revoke: 'Revocar',
  revoke_confirm: '¿Revocar {name}? Todo lo que la use deja de funcionar de inmediato.',
  revoked: 'Revocada',
  create_key: 'Crear una clave de API',
  key_name: 'Nombre de la clave',
  mode: 'Modo',
  'mode.live': 'real',
  'mode.test': 'prueba',
  submit_key: 'Crear la clave',
  api_key: 'Clave de API {name}',
};
