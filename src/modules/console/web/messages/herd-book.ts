/** The herd book's shared pieces (web/herd-book.ts): the withdrawal banner and chips, the override field. */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  title: 'Under withdrawal',
  meat_line: 'Meat: not for slaughter or sale before {when} ({left})',
  milk_line: 'Milk: withheld until {when} ({left})',
  eggs_line: 'Eggs: withheld until {when} ({left})',
  meat_chip: 'Meat withdrawal until {when}',
  milk_chip: 'Milk withheld until {when}',
  eggs_chip: 'Eggs withheld until {when}',
  label_batch: {
    one: 'Because of {medicine}, batch {batch}: the label’s period, {count} day.',
    other: 'Because of {medicine}, batch {batch}: the label’s period, {count} days.',
  },
  label_no_batch: {
    one: 'Because of {medicine} (no batch recorded): the label’s period, {count} day.',
    other: 'Because of {medicine} (no batch recorded): the label’s period, {count} days.',
  },
  cascade_batch: {
    one: 'Because of {medicine}, batch {batch}: off-label, the label’s longest period × the cascade factor, {count} day.',
    other:
      'Because of {medicine}, batch {batch}: off-label, the label’s longest period × the cascade factor, {count} days.',
  },
  cascade_no_batch: {
    one: 'Because of {medicine} (no batch recorded): off-label, the label’s longest period × the cascade factor, {count} day.',
    other:
      'Because of {medicine} (no batch recorded): off-label, the label’s longest period × the cascade factor, {count} days.',
  },
  minimum_batch: {
    one: 'Because of {medicine}, batch {batch}: off-label, the statutory minimum, {count} day.',
    other: 'Because of {medicine}, batch {batch}: off-label, the statutory minimum, {count} days.',
  },
  minimum_no_batch: {
    one: 'Because of {medicine} (no batch recorded): off-label, the statutory minimum, {count} day.',
    other: 'Because of {medicine} (no batch recorded): off-label, the statutory minimum, {count} days.',
  },
  organic: 'Doubled: organic.',
  give_reason: 'Give a reason below',
  override: 'Reason to go ahead anyway (kept with the record)',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  title: 'En período de retiro',
  meat_line: 'Carne: no apta para sacrificio ni venta antes del {when} ({left})',
  milk_line: 'Leche: retenida hasta el {when} ({left})',
  eggs_line: 'Huevos: retenidos hasta el {when} ({left})',
  meat_chip: 'Retiro de carne hasta el {when}',
  milk_chip: 'Leche retenida hasta el {when}',
  eggs_chip: 'Huevos retenidos hasta el {when}',
  label_batch: {
    one: 'Por {medicine}, lote {batch}: el período de la etiqueta, {count} día.',
    other: 'Por {medicine}, lote {batch}: el período de la etiqueta, {count} días.',
  },
  label_no_batch: {
    one: 'Por {medicine} (sin lote registrado): el período de la etiqueta, {count} día.',
    other: 'Por {medicine} (sin lote registrado): el período de la etiqueta, {count} días.',
  },
  cascade_batch: {
    one: 'Por {medicine}, lote {batch}: uso fuera de etiqueta, el período más largo de la etiqueta × el factor de cascada, {count} día.',
    other:
      'Por {medicine}, lote {batch}: uso fuera de etiqueta, el período más largo de la etiqueta × el factor de cascada, {count} días.',
  },
  cascade_no_batch: {
    one: 'Por {medicine} (sin lote registrado): uso fuera de etiqueta, el período más largo de la etiqueta × el factor de cascada, {count} día.',
    other:
      'Por {medicine} (sin lote registrado): uso fuera de etiqueta, el período más largo de la etiqueta × el factor de cascada, {count} días.',
  },
  minimum_batch: {
    one: 'Por {medicine}, lote {batch}: uso fuera de etiqueta, el mínimo legal, {count} día.',
    other: 'Por {medicine}, lote {batch}: uso fuera de etiqueta, el mínimo legal, {count} días.',
  },
  minimum_no_batch: {
    one: 'Por {medicine} (sin lote registrado): uso fuera de etiqueta, el mínimo legal, {count} día.',
    other: 'Por {medicine} (sin lote registrado): uso fuera de etiqueta, el mínimo legal, {count} días.',
  },
  organic: 'Duplicado: producción orgánica.',
  give_reason: 'Indique un motivo abajo',
  override: 'Motivo para seguir de todos modos (se guarda con el registro)',
};
