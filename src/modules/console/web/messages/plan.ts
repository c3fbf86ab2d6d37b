/** The grazing plan's words (pages/plan.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  title: 'Grazing plan',
  intro:
    'Each paddock’s rest against its target, from two weeks ago to six weeks ahead; planned moves are open tasks with a destination paddock (marking one done records the move).',
  still_grazed: 'still grazed now: its rest has not begun',
  early: { one: '{count} day before its rest target', other: '{count} days before its rest target' },
  being_grazed: 'Being grazed',
  never_grazed: 'Never grazed',
  rested_no_target: { one: 'Rested {count} day (no target)', other: 'Rested {count} days (no target)' },
  ready: { one: 'Ready: rested {count} of {target} days', other: 'Ready: rested {count} of {target} days' },
  resting: {
    one: 'Rested {count} of {target} days · ready {day}',
    other: 'Rested {count} of {target} days · ready {day}',
  },
  track: '{paddock}: {state}',
  an_animal: 'an animal',
  a_group: 'a group',
  moves_in: '{day}: {who} moves in',
  no_date: 'No date',
  warnings: {
    one: '{count} planned move before the rest target',
    other: '{count} planned moves before the rest target',
  },
  key_grazed: 'grazed',
  key_resting: 'resting',
  key_ready: 'ready',
  key_move: 'planned move',
  key_today: 'today',
  none: 'No paddocks yet: add them on the Paddocks page.',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  title: 'Plan de pastoreo',
  intro:
    'El descanso de cada potrero frente a su objetivo, desde hace dos semanas hasta seis semanas adelante; los movimientos previstos son tareas abiertas con un potrero de destino (al marcar una como hecha se registra el movimiento).',
  still_grazed: 'todavía en pastoreo: su descanso no ha empezado',
  early: {
    one: '{count} día antes de su descanso objetivo',
    other: '{count} días antes de su descanso objetivo',
  },
  being_grazed: 'En pastoreo',
  never_grazed: 'Nunca pastoreado',
  rested_no_target: {
    one: 'Descansó {count} día (sin objetivo)',
    other: 'Descansó {count} días (sin objetivo)',
  },
  ready: {
    one: 'Listo: descansó {count} de {target} días',
    other: 'Listo: descansó {count} de {target} días',
  },
  resting: {
    one: 'Descansó {count} de {target} días · listo el {day}',
    other: 'Descansó {count} de {target} días · listo el {day}',
  },
  track: '{paddock}: {state}',
  an_animal: 'un animal',
  a_group: 'un grupo',
  moves_in: '{day}: entra {who}',
  no_date: 'Sin fecha',
  warnings: {
    one: '{count} movimiento previsto antes del descanso objetivo',
    other: '{count} movimientos previstos antes del descanso objetivo',
  },
  key_grazed: 'en pastoreo',
  key_resting: 'en descanso',
  key_ready: 'listo',
  key_move: 'movimiento previsto',
  key_today: 'hoy',
  none: 'Todavía no hay potreros: agréguelos en la página Potreros.',
};
