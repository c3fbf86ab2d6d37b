/**
 * The event types' names (web/event-types.ts): the event log's pickers, an animal's history, a queued change.
 * Apart from the shared catalog, which the sign-in page loads too.
 */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  weight: 'Weight',
  treatment: 'Treatment',
  move: 'Move',
  birth: 'Birth',
  heat: 'Heat',
  service: 'Service',
  pregnancy_check: 'Pregnancy check',
  abortion: 'Abortion',
  weaning: 'Weaning',
  sale: 'Sale',
  slaughter: 'Slaughter',
  death: 'Death',
  note: 'Note',
  'feed.delivery': 'Feed delivery',
  'feed.refilled': 'Feeder refilled',
  'egg.collection': 'Egg collection',
  movement: 'Movement on or off the holding',
  reading: 'Reading',
  'alert.escalated': 'Alert escalated',
  custom: 'Other: “{type}”',
} as const satisfies Record<string, Message>;

export const ES: Readonly<Record<keyof typeof EN, Message>> = {
  weight: 'Peso',
  treatment: 'Tratamiento',
  move: 'Traslado',
  birth: 'Nacimiento',
  heat: 'Celo',
  service: 'Servicio',
  pregnancy_check: 'Diagnóstico de gestación',
  abortion: 'Aborto',
  weaning: 'Destete',
  sale: 'Venta',
  slaughter: 'Sacrificio',
  death: 'Muerte',
  note: 'Nota',
  'feed.delivery': 'Entrega de pienso',
  'feed.refilled': 'Comedero rellenado',
  'egg.collection': 'Recogida de huevos',
  movement: 'Entrada o salida de la explotación',
  reading: 'Lectura',
  'alert.escalated': 'Alerta agravada',
  custom: 'Otro: «{type}»',
};
