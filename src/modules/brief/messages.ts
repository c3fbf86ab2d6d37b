/**
 * The brief's sentences in Spanish (issue 45): whole messages with placeholders (src/lib/message-format.ts).
 * English is written by wording.ts itself, unchanged, since API clients and agents read it; a language other
 * than English writes each sentence from here. Quantities stay as the English writes them ("12%", "31 °C"),
 * in the catalog's units, so the reader's units and number style are applied afterwards as for English.
 */
import { formatMessage, type Message, type MessageParams } from '../../lib/message-format.ts';

export const BRIEF_ES = {
  // A group of items with its count, as the headline names it.
  'group.alert.urgent': { one: '{count} alerta urgente', other: '{count} alertas urgentes' },
  'group.alert.watch': { one: '{count} alerta de atención', other: '{count} alertas de atención' },
  'group.alert.info': { one: '{count} alerta informativa', other: '{count} alertas informativas' },
  'group.task_overdue': { one: '{count} tarea atrasada', other: '{count} tareas atrasadas' },
  'group.task_due_today': { one: '{count} tarea para hoy', other: '{count} tareas para hoy' },
  'group.milk_withheld': {
    one: '{count} animal con la leche retenida',
    other: '{count} animales con la leche retenida',
  },
  'group.milk_clear': {
    one: '{count} animal cuya leche vuelve hoy al tanque',
    other: '{count} animales cuya leche vuelve hoy al tanque',
  },
  'group.house': {
    one: '{count} gallinero que necesita atención',
    other: '{count} gallineros que necesitan atención',
  },
  'group.doors_open': {
    one: '{count} gallinero con puertas abiertas después del anochecer',
    other: '{count} gallineros con puertas abiertas después del anochecer',
  },
  'group.device_quiet': {
    one: '{count} dispositivo sin reportar',
    other: '{count} dispositivos sin reportar',
  },
  'group.device_battery': {
    one: '{count} dispositivo con batería baja',
    other: '{count} dispositivos con batería baja',
  },
  'group.paddock_rest': {
    one: '{count} potrero que superó su descanso objetivo',
    other: '{count} potreros que superaron su descanso objetivo',
  },
  'group.batch_expiring': {
    one: '{count} lote de medicamento que vence en 30 días',
    other: '{count} lotes de medicamento que vencen en 30 días',
  },
  'group.medicine_low': {
    one: '{count} medicamento con poca existencia',
    other: '{count} medicamentos con poca existencia',
  },
  'group.weight_gain': {
    one: '{count} animal con poca ganancia de peso',
    other: '{count} animales con poca ganancia de peso',
  },
  'group.group_not_weighed': {
    one: '{count} grupo pendiente de pesaje',
    other: '{count} grupos pendientes de pesaje',
  },
  'group.item': { one: '{count} elemento', other: '{count} elementos' },
  'group.more_items': { one: '{count} elemento más', other: '{count} elementos más' },

  'headline.quiet':
    'Todo tranquilo en {farm}: sin alertas, nada pendiente para hoy y todos los dispositivos reportando.',
  'headline.top': '{lead}: {top}.',
  'headline.top_also': '{lead}: {top}. Además: {others}.',

  // "and 4 more …" at the end of a list of names.
  'more.urgent_alert': { one: '{count} alerta urgente más', other: '{count} alertas urgentes más' },
  'more.watch_alert': { one: '{count} alerta de atención más', other: '{count} alertas de atención más' },
  'more.overdue_task': { one: '{count} tarea atrasada más', other: '{count} tareas atrasadas más' },
  'more.task': { one: '{count} tarea más', other: '{count} tareas más' },
  'more.house_doors': {
    one: '{count} gallinero más con puertas abiertas',
    other: '{count} gallineros más con puertas abiertas',
  },
  'more.device': { one: '{count} dispositivo más', other: '{count} dispositivos más' },
  'more.paddock': { one: '{count} potrero más', other: '{count} potreros más' },
  'more.animal': { one: '{count} animal más', other: '{count} animales más' },
  'more.group': { one: '{count} grupo más', other: '{count} grupos más' },
  'more.house': { one: '{count} gallinero más', other: '{count} gallineros más' },

  'text.no_alerts': 'Sin alertas abiertas.',
  'text.urgent': 'Urgentes: {list}.',
  'text.watch': 'En atención: {list}.',
  'text.overdue': 'Atrasadas: {list}.',
  'text.due_today': 'Para hoy: {list}.',
  'text.task_at': '{title} ({time})',
  'text.nothing_due': 'Nada pendiente para hoy.',
  'text.houses_fine': 'Los {count} gallineros están bien.',
  'text.houses_attention': {
    one: '{count} gallinero de {total} necesita atención: {list}.',
    other: '{count} gallineros de {total} necesitan atención: {list}.',
  },
  'text.house_attention': '{house} ({reasons})',
  'text.after_dusk': 'Después del anochecer: {list}.',
  'text.not_reporting': 'Sin reportar: {list}.',
  'text.all_reporting': 'Todos los dispositivos están reportando.',
  'text.low_battery': 'Batería baja: {list}.',
  'text.rested': 'Descansados y listos para pastorear: {list}.',
  'text.weights': 'Pesos: {list}.',
  'text.due_weighing': 'Pendientes de pesaje: {list}.',
  'text.medicine_cabinet': 'Botiquín: {list}.',

  // One house's line.
  'house.line': '{house}: {parts}.',
  'house.no_readings': '{house}: aún sin lecturas.',
  'house.feed': 'pienso {value}%',
  'house.water': 'agua {value}%',
  'house.temp': '{value} °C',
  'house.ammonia': 'amoníaco {value} ppm',
  'house.battery': 'batería {value}%',
  'house.doors_closed': 'puertas cerradas',
  'house.doors_open': '{count} de {total} puertas abiertas',
  'house.moving': 'en movimiento',
  'house.not_reporting': 'sin reportar',

  // Times relative to today on the farm's clock.
  'when.yesterday': 'ayer {time}',
  'when.tomorrow': 'mañana {time}',
  'when.date': '{date} {time}',

  'item.acknowledged': 'Confirmada. {reason}',
  'task.overdue_day': 'Atrasada: vencía el {date}',
  'task.due_today': 'Para hoy',
  'task.overdue_at': 'Atrasada: vencía {when}',
  'task.due_today_at': 'Para hoy a las {when}',
  'task.detail_assignee': '{due}; {assignee}',
  // What is off at a house ({value}, {line}, {target}, {off}: numbers in the catalog's units).
  'cond.house.feed': 'tolva de pienso {value}%',
  'cond.house.feed.urgent': 'Tolva de pienso al {value}% (umbral urgente: {line}%)',
  'cond.house.feed.watch': 'Tolva de pienso al {value}% (umbral de atención: {line}%)',
  'cond.water.level': 'agua {value}%',
  'cond.water.level.urgent': 'Tanque de cabecera al {value}% (umbral urgente: {line}%)',
  'cond.water.level.watch': 'Tanque de cabecera al {value}% (umbral de atención: {line}%)',
  'cond.house.ammonia': 'amoníaco {value} ppm',
  'cond.house.ammonia.urgent': 'Amoníaco en {value} ppm (umbral urgente: {line} ppm)',
  'cond.house.ammonia.watch': 'Amoníaco en {value} ppm (umbral de atención: {line} ppm)',
  'cond.house.heat': '{value} °C',
  'cond.house.heat.urgent': 'Aire a {value} °C (umbral urgente: {line} °C)',
  'cond.house.heat.watch': 'Aire a {value} °C (umbral de atención: {line} °C)',
  'cond.target': '{value} °C (objetivo {target} °C)',
  'cond.target.above': 'Aire a {value} °C, {off} °C por encima del objetivo de {target} °C',
  'cond.target.below': 'Aire a {value} °C, {off} °C por debajo del objetivo de {target} °C',
  'house.item': '{house}: {phrases}',
  'house.attention_doors': {
    one: '{count} puerta abierta después del anochecer',
    other: '{count} puertas abiertas después del anochecer',
  },
  'house.attention_quiet': 'sin reportar desde hace {silent}',
  'doors.title': {
    one: '{count} trampilla abierta después del anochecer en {house}',
    other: '{count} trampillas abiertas después del anochecer en {house}',
  },
  'doors.detail': 'Abiertas: {open}. Las trampillas se cierran {close} y se abren {reopen}.',
  'doors.some': 'trampilla {doors}',
  'doors.many': '{count} de {total} trampillas',
  'doors.at_dusk': 'al anochecer ({time})',
  'doors.at_dawn': 'al amanecer ({time})',
  'doors.at_time': 'a las {time}',
  // Quiet devices, low batteries, rested paddocks ({silent} and {interval}: durations).
  'quiet.title': '{device} dejó de reportar',
  'quiet.never': 'No ha reportado desde que se agregó hace {silent}.',
  'quiet.unknown': 'Sin reportes en {silent} (intervalo habitual desconocido; sin reportar tras 6 h).',
  'quiet.usual': 'Sin reportes en {silent} (suele reportar cada {interval}).',
  'battery.title': 'Batería baja: {device} ({value}%)',
  'battery.detail': 'Batería al {value}%, igual o por debajo del umbral de {line}%.',
  'paddock.title': '{paddock} superó su descanso objetivo',
  'paddock.detail': {
    one: 'Descansó {count} día; objetivo: {target} días. Listo para pastorear.',
    other: 'Descansó {count} días; objetivo: {target} días. Listo para pastorear.',
  },

  // The herd book: milk withheld or back in the tank, the medicine cabinet ({left}, {bought}, {line}: stock
  // with the medicine's own unit as the farm wrote it).
  'animal.tag': 'crotal {tag}',
  'medicine.batch': '{medicine} (lote {batch})',
  'withdrawal.label': 'según la etiqueta',
  'withdrawal.cascade': 'cascada',
  'withdrawal.cascade_minimum': 'cascada, mínimo legal',
  'milk.withheld.title': 'Leche de {animal} retenida hasta {when}',
  'milk.withheld.detail': {
    one: '{medicine}: retiro de leche de {count} día ({rule}). Mantenga la leche fuera del tanque.',
    other: '{medicine}: retiro de leche de {count} días ({rule}). Mantenga la leche fuera del tanque.',
  },
  'milk.withheld.detail_organic': {
    one: '{medicine}: retiro de leche de {count} día ({rule}, duplicado por ser orgánico). Mantenga la leche fuera del tanque.',
    other:
      '{medicine}: retiro de leche de {count} días ({rule}, duplicado por ser orgánico). Mantenga la leche fuera del tanque.',
  },
  'milk.clear.title': 'La leche de {animal} puede volver al tanque desde {when}',
  'milk.clear.detail': 'El retiro de leche por {medicine} termina hoy a las {when}.',
  'batch.title': {
    one: 'El lote {batch} de {medicine} vence en {count} día',
    other: 'El lote {batch} de {medicine} vence en {count} días',
  },
  'batch.detail': 'Vence el {date}; quedan {left} de {bought}.',
  'low.title': 'Poca existencia: {medicine} (quedan {left})',
  'low.none': 'No quedan existencias en lotes sin vencer.',
  'low.share':
    'Quedan {left} en lotes sin vencer, igual o por debajo de la quinta parte de los {bought} comprados.',
  'low.own':
    'Quedan {left} en lotes sin vencer, igual o por debajo de su umbral de poca existencia de {line}.',

  // Breeding ({date}: a day, YYYY-MM-DD, as the tasks' days are written). Every species "pare" in Spanish.
  'birth.overdue.title': '{animal} tiene el parto atrasado',
  'birth.overdue.detail': {
    one: 'Parto previsto el {date}, hace {count} día.',
    other: 'Parto previsto el {date}, hace {count} días.',
  },
  'birth.due.title': '{animal} está próxima a parir',
  'birth.due.detail': 'Parto previsto el {date}.',
  'birth.due.detail_pregnant': 'Parto previsto el {date} (preñez confirmada).',
  'check.title': 'Diagnóstico de preñez pendiente para {animal}',
  'check.detail': {
    one: 'Servida el {date}, hace {count} día.',
    other: 'Servida el {date}, hace {count} días.',
  },
  'heat.title': '{animal} podría entrar en celo hoy',
  'heat.detail_bred': 'Servida el {date}: vigile si repite celo, por si no quedó preñada.',
  'heat.detail_open': 'Un ciclo después de su último celo o servicio fallido.',

  // Weights ({gain}, {kg}, {threshold}: numbers as the English writes them).
  'weight.lost.title': '{animal} perdió peso',
  'weight.lost.detail': '{gain} kg/día desde el pesaje anterior; {kg} kg.',
  'weight.slow.title': '{animal} está ganando peso lentamente',
  'weight.slow.detail': '{gain} kg/día, por debajo de los {threshold} kg/día de la granja; {kg} kg.',
  'weighing.title': {
    one: '{group} sin pesar desde hace {count} día',
    other: '{group} sin pesar desde hace {count} días',
  },
  'weighing.detail': {
    one: 'La granja pesa cada {interval} días; {count} cabeza.',
    other: 'La granja pesa cada {interval} días; {count} cabezas.',
  },
} as const satisfies Record<string, Message>;

export type BriefKey = keyof typeof BRIEF_ES;

/** One sentence of the brief in Spanish, from the catalog above. */
export function sayEs(key: BriefKey, params: MessageParams = {}): string {
  return formatMessage('es', BRIEF_ES[key], params);
}
