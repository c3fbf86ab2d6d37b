/** The acknowledge link page's words (pages/ack.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  unknown: 'This link is not known',
  instead: 'Open the alert in the console instead:',
  alerts: 'Alerts',
  done: 'Acknowledged. Whoever was being woken for it will not be.',
  status: 'Status:',
  'status.open': 'open',
  'status.acknowledged': 'acknowledged',
  'status.resolved': 'resolved',
  acknowledge: 'Acknowledge this alert',
  acknowledging: 'Acknowledging…',
  is_acknowledged: 'This alert is acknowledged.',
  used: 'This link was used or has expired.',
  resolved: 'This alert is resolved: nothing to do.',
  open: 'Open the alert in the console',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  unknown: 'Este enlace no es conocido',
  instead: 'Abra la alerta en la consola:',
  alerts: 'Alertas',
  done: 'Confirmada. Ya no se despertará a nadie por ella.',
  status: 'Estado:',
  'status.open': 'abierta',
  'status.acknowledged': 'confirmada',
  'status.resolved': 'resuelta',
  acknowledge: 'Confirmar esta alerta',
  acknowledging: 'Confirmando…',
  is_acknowledged: 'Esta alerta está confirmada.',
  used: 'Este enlace ya se usó o caducó.',
  resolved: 'Esta alerta está resuelta: no hay nada que hacer.',
  open: 'Abrir la alerta en la consola',
};
