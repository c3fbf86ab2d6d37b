/** The calving calendar's words (pages/calving.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  title: 'Calving calendar',
  intro: 'Females due in the next {weeks} weeks, from their service and their species’ gestation.',
  overdue: 'Overdue',
  pregnant: '{species}, pregnant: due {day}',
  bred: '{species}, bred (not yet checked): due {day} if it held',
  week: { one: 'Week of {day}: {count} due', other: 'Week of {day}: {count} due' },
  none: 'No female is due in the next {weeks} weeks.',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  title: 'Calendario de partos',
  intro: 'Hembras que paren en las próximas {weeks} semanas, según su servicio y la gestación de su especie.',
  overdue: 'Pasadas de fecha',
  pregnant: '{species}, preñada: pare el {day}',
  bred: '{species}, servida (sin diagnóstico): pare el {day} si quedó preñada',
  week: { one: 'Semana del {day}: {count} parto', other: 'Semana del {day}: {count} partos' },
  none: 'Ninguna hembra pare en las próximas {weeks} semanas.',
};
