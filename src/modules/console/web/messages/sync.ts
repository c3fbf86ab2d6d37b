/** The waiting-to-sync page's words (pages/sync.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  'state.waiting': 'Waiting',
  'state.synced': 'Synced',
  'state.attention': 'Needs attention',
  fix_named: 'Fix: {change}',
  sending: 'Sending…',
  send_again: 'Send again',
  cancel: 'Cancel',
  made: 'Made {made}',
  made_synced: 'Made {made} · synced {synced}',
  gone: 'It was deleted on Farmstead while this phone was away, so there is nothing to send it to.',
  fix: 'Fix',
  discard: 'Discard',
  discard_confirm: 'Discard “{change}”? It will not reach Farmstead.',
  kept: 'Kept.',
  discarded: 'Discarded.',
  title: 'Waiting to sync',
  intro:
    'Changes made on this phone go to Farmstead oldest first, listed here in that order, by themselves when there is signal. One that Farmstead refuses waits here for you to fix or discard; the ones after it still go. The latest synced stay listed for a while.',
  sync_now: 'Sync now',
  syncing: 'Syncing…',
  synced_all: 'Synced what could be.',
  still_offline: 'Still offline.',
  nothing: 'Nothing waiting: everything recorded here has reached Farmstead.',
  'note.blocked':
    'It belongs to a record added on this phone that has not synced: fix or discard that first.',
  'note.no_answer':
    'Sent more than a day ago without an answer. Check whether it arrived (for example in the event log) before sending it again.',
  'note.done_by_other': 'Already done by someone else ({at}).',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  'state.waiting': 'En espera',
  'state.synced': 'Sincronizado',
  'state.attention': 'Requiere atención',
  fix_named: 'Corregir: {change}',
  sending: 'Enviando…',
  send_again: 'Enviar de nuevo',
  cancel: 'Cancelar',
  made: 'Hecho {made}',
  made_synced: 'Hecho {made} · sincronizado {synced}',
  gone: 'Se eliminó en Farmstead mientras este teléfono estaba sin conexión, así que no hay a dónde enviarlo.',
  fix: 'Corregir',
  discard: 'Descartar',
  discard_confirm: '¿Descartar «{change}»? No llegará a Farmstead.',
  kept: 'Se conservó.',
  discarded: 'Descartado.',
  title: 'Por sincronizar',
  intro:
    'Los cambios hechos en este teléfono llegan a Farmstead del más antiguo al más reciente, en el orden de esta lista, solos cuando hay señal. Uno que Farmstead rechace espera aquí a que usted lo corrija o lo descarte; los siguientes se envían igual. Los últimos sincronizados siguen en la lista un tiempo.',
  sync_now: 'Sincronizar ahora',
  syncing: 'Sincronizando…',
  synced_all: 'Se sincronizó lo que se pudo.',
  still_offline: 'Sigue sin conexión.',
  nothing: 'Nada en espera: todo lo registrado aquí ya llegó a Farmstead.',
  'note.blocked':
    'Pertenece a un registro agregado en este teléfono que aún no se sincronizó: corrija o descarte ese primero.',
  'note.no_answer':
    'Se envió hace más de un día y no hubo respuesta. Revise si llegó (por ejemplo, en el registro de eventos) antes de enviarlo de nuevo.',
  'note.done_by_other': 'Otra persona ya la había hecho ({at}).',
};
