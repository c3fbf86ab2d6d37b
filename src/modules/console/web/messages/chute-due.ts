/** The chute card's "what is due" words beyond a treatment's dose (web/chute-due.ts; web/i18n.ts `words`). */
import type { Message } from '../../../../lib/message-format.ts';

export const EN = {
  pregnancy_check_due: 'Pregnancy check due (since {day}): served and not yet checked.',
} as const satisfies Record<string, Message>;

export const ES: Record<keyof typeof EN, Message> = {
  pregnancy_check_due: 'Diagnóstico de preñez pendiente (desde el {day}): servida y aún sin diagnosticar.',
};
