/** The settings page's water, silence and intake rules (pages/rule-settings.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  on: 'On',
  days: { one: '{count} day', other: '{count} days' },
  hours: { one: '{count} hour', other: '{count} hours' },
  minutes: { one: '{count} minute', other: '{count} minutes' },
  range: 'Enter a time from {from} to {to}.',
  range_typed: {
    one: 'Enter a time from {from} to {to} (you entered {count} minute).',
    other: 'Enter a time from {from} to {to} (you entered {count} minutes).',
  },
  saved: 'Rules saved',
  title: 'Water, silence and intake alerts',
  help: 'Blank means the default. Turning a rule off also resolves the alerts it has open.',
  leak: 'Water dropping fast',
  leak_what:
    'A tank or trough on a water device or house falls fast: a burst line, a stuck valve, a tipped trough.',
  falls_by: 'Falls by (points)',
  within: 'Within (minutes)',
  leak_default: 'Default: {points} points within {minutes} minutes.',
  quiet: 'Device quiet',
  quiet_what:
    'No report for {factor} times a device’s usual interval, and at least this long. Houses and guardians become urgent after {hours} hours.',
  type_minutes: '{type} (minutes)',
  quiet_default: 'Default: {minutes} minutes for every type. Any from {min} minutes to {max} days.',
  intake: 'Intake dropped',
  intake_what:
    'A group with a head count drank or ate less per head yesterday than its own {days}-day median. It resolves when a day is back within {pct} %.',
  water_drop: 'Water per head drops (%)',
  feed_drop: 'Feed per head drops (%)',
  water_default: '{pct} % for water per head',
  feed_default: '{pct} % for feed per head',
  intake_default: 'Default: {list}. Any above {min} % and up to {max} %.',
  save: 'Save rules',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  on: 'Activa',
  days: { one: '{count} día', other: '{count} días' },
  hours: { one: '{count} hora', other: '{count} horas' },
  minutes: { one: '{count} minuto', other: '{count} minutos' },
  range: 'Escriba un tiempo de {from} a {to}.',
  range_typed: {
    one: 'Escriba un tiempo de {from} a {to} (escribió {count} minuto).',
    other: 'Escriba un tiempo de {from} a {to} (escribió {count} minutos).',
  },
  saved: 'Reglas guardadas',
  title: 'Alertas de agua, silencio y consumo',
  help: 'Vacío significa el valor predeterminado. Desactivar una regla también resuelve las alertas que tiene abiertas.',
  leak: 'El agua baja rápido',
  leak_what:
    'Un tanque o bebedero de un dispositivo de agua o de un gallinero baja rápido: una tubería rota, una válvula trabada, un bebedero volcado.',
  falls_by: 'Baja (puntos)',
  within: 'En (minutos)',
  leak_default: 'Predeterminado: {points} puntos en {minutes} minutos.',
  quiet: 'Dispositivo sin señal',
  quiet_what:
    'Sin informe durante {factor} veces el intervalo habitual del dispositivo, y al menos este tiempo. Los gallineros y los guardianes pasan a urgente después de {hours} horas.',
  type_minutes: '{type} (minutos)',
  quiet_default:
    'Predeterminado: {minutes} minutos para todos los tipos. Cualquiera de {min} minutos a {max} días.',
  intake: 'Bajó el consumo',
  intake_what:
    'Un grupo con número de cabezas bebió o comió ayer menos por cabeza que su propia mediana de {days} días. Se resuelve cuando un día vuelve a estar dentro del {pct} %.',
  water_drop: 'Baja del agua por cabeza (%)',
  feed_drop: 'Baja del pienso por cabeza (%)',
  water_default: '{pct} % para el agua por cabeza',
  feed_default: '{pct} % para el pienso por cabeza',
  intake_default: 'Predeterminado: {list}. Cualquiera por encima de {min} % y hasta {max} %.',
  save: 'Guardar las reglas',
};
